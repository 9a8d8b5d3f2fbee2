"""Prints the SigV4 Authorization header botocore computes for one GET, at a fixed time.

Usage: sigv4_sign.py SERVICE REGION URL AMZ_DATE (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)
"""

import datetime
import hashlib
import os
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

service, region, url, amz_date = sys.argv[1:5]
fixed = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ")


class FixedClock(datetime.datetime):
    """botocore reads the signing time from datetime.datetime.utcnow()/now(); the check needs a fixed one."""

    @classmethod
    def utcnow(cls):
        return fixed

    @classmethod
    def now(cls, tz=None):
        return fixed.replace(tzinfo=tz) if tz else fixed


botocore.auth.datetime.datetime = FixedClock
# The AWS SDK for Java v2 also signs the payload hash header; send it here too so both sign the same headers.
request = AWSRequest(method="GET", url=url, headers={"X-Amz-Content-SHA256": hashlib.sha256(b"").hexdigest()})
creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"])
botocore.auth.SigV4Auth(creds, service, region).add_auth(request)
print(request.headers["X-Amz-Date"])
print(request.headers["Authorization"])
