"""Starts LocalStack's runtime on the host (no Docker) with its gateway bound to one interface.

LocalStack's default gateway server (twisted) listens on every IPv4 interface whatever host GATEWAY_LISTEN
names (its TCP4ServerEndpoint is built without an interface). The local stack must listen on 127.0.0.1 only,
so every IPv4 endpoint built without an interface gets GATEWAY_LISTEN's host before LocalStack's main runs.
Everything else is configured through LocalStack's own environment variables, set by the local stack
(dev.pulse.local.backend.LocalStackBackend).
"""

import sys

from twisted.internet import endpoints

from localstack import config

_host = config.GATEWAY_LISTEN[0].host
_tcp4 = endpoints.TCP4ServerEndpoint


def _bound(reactor, port, backlog=50, interface=""):
    return _tcp4(reactor, port, backlog, interface or _host)


endpoints.TCP4ServerEndpoint = _bound

from localstack.runtime import main as runtime_main  # noqa: E402 (after the patch: it imports the server)

if __name__ == "__main__":
    sys.exit(runtime_main.main())
