"""Schemathesis hooks for ApiFuzzIT (loaded through SCHEMATHESIS_HOOKS).

The push endpoints take `application/x-protobuf` bodies, for which schemathesis has no serializer: their generated
bodies (schema `type: string, format: binary`) are sent as raw bytes, as schemathesis sends
`application/octet-stream`.
"""

import schemathesis

schemathesis.serializer.alias("application/x-protobuf", "application/octet-stream")
