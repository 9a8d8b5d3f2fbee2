#!/usr/bin/env python3
"""Store the batches that the ingest event source mapping gave up on again, exactly; list poison records.

Reads the dead-letter queue and handles each message by its kind:

* a Lambda on-failure record with ``KinesisBatchInfo`` (a batch that ran out of retries or record age):
  reads the shard from ``startSequenceNumber`` to ``endSequenceNumber`` and invokes IngestFunction
  synchronously with exactly those records, with their original sequence numbers and arrival times, as one
  Kinesis event whose records carry ``eventName`` = ``pulse:redrive``. The function then writes the batch's
  partials under the same keys as the discarded attempts (overwriting what they left) and does not move the
  shard's committed position. The message is deleted only after a response without a function error and
  without ``batchItemFailures``. What cannot be redriven exactly is refused, reported and kept: records past
  the stream's retention, a range that cannot be read completely, an event over Lambda's 6 MB synchronous
  payload limit, and (said by the function) a shard whose committed position has not yet passed the batch.
* a poison record sent by IngestFunction (``kind`` = ``poison``) for bad data (a decoder's or a limit's verdict):
  listed with its reason and left, since putting bad data back fails again; ``--delete-poison`` deletes them.
* a record set aside by IngestFunction (``kind`` = ``poison``, reason ``failed N attempts (...``): a record that
  failed every attempt (a crash, a timeout, an ``Error`` while decoding, an item DynamoDB refused), usually good data
  hit by a bug; the shard moved past it and its data is not counted. Without ``--set-aside`` it is listed as set
  aside and left. With ``--set-aside`` (once the cause is fixed) it is redriven like a batch: the record is rebuilt
  with its original sequence number, partition key, arrival time and data, and IngestFunction is invoked
  synchronously with it alone as a ``pulse:redrive`` event. The function writes its partials into the slots the
  setting aside emptied (replacing them, so a repeated redrive writes the same items again), and the message is
  deleted only after a response without a function error and without ``batchItemFailures``. The data is taken from
  the message when it holds all of it (``payloadHeadBase64`` is the first 1 KB of ``payloadBytes``), else read from
  the stream at the record's sequence number; a record that is neither is refused and kept. ``--delete-poison``
  never deletes set-aside messages: their data is not counted anywhere else.
* an on-failure record with ``DDBStreamBatchInfo`` (the compaction mapping): listed and left; it needs no
  redrive (docs/redrive.md says what to do).
* anything else: listed and left.

``--reput`` keeps the old behaviour: the records are put back on the stream as new records (new sequence
numbers and arrival times), which counts twice whatever the discarded attempts stored (docs/redrive.md).

Every message that is not deleted is made visible again at the end of the run. Exit status: 0 when every
Kinesis batch read was redriven, and with ``--set-aside`` every set-aside record read too (poison and compaction
messages that stay, and set-aside ones without ``--set-aside``, are not failures), 1 when a batch or (with
``--set-aside``) a set-aside record stays in the queue (refused, records lost, the invocation or the put failed)
or an AWS call failed, 2 for bad arguments.
"""

import argparse
import base64
import binascii
import datetime
import json
import random
import re
import sys
import time

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:  # pragma: no cover - the Makefile runs this with the project venv
    sys.stderr.write(
        "redrive.py needs boto3: run it through `make redrive` (installs .venv) or with .venv/bin/python\n"
    )
    sys.exit(1)

PUT_BATCH_RECORDS = 500  # PutRecords: at most 500 records ...
PUT_BATCH_BYTES = 5 * 1024 * 1024  # ... and 5 MiB (data + partition keys) per call
PUT_ATTEMPTS = 10  # attempts for the failed entries of one PutRecords batch
BACKOFF_BASE_S = 0.1
BACKOFF_CAP_S = 5.0
GET_RECORDS_LIMIT = 1000
EMPTY_PAGES_MAX = 25  # consecutive empty GetRecords pages before giving up on a position
VISIBILITY_S = 1800  # messages being handled stay hidden from other readers this long
RECEIVE_WAIT_S = 1  # long poll, so an empty answer means the queue is empty
INVOKE_PAYLOAD_MAX = 6 * 1024 * 1024  # Lambda: 6 MB (6,291,456 bytes) request payload, synchronous invoke
INVOKE_READ_TIMEOUT_S = 905  # a synchronous invoke may run up to the function timeout (max 900 s)
REDRIVE_EVENT_NAME = "pulse:redrive"  # IngestHandler.REDRIVE_EVENT_NAME: store below the committed position
# IngestService/AttemptPlan: the reason of a record set aside after failing every attempt (a decoder's verdict never
# reads like this), e.g. "failed 6 attempts (3 of them with the record alone): the function crashed or timed out".
SET_ASIDE_REASON = re.compile(r"failed (\d+) attempts \(\d+ of them with the record alone\): ")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

EPILOG = """\
examples:
  redrive.py --stack-name pulse --dry-run
  redrive.py --stack-name pulse --set-aside
  redrive.py --queue-url https://sqs.us-east-1.amazonaws.com/123456789012/pulse-DeadLetterQueue-X \\
             --stream-name pulse-Stream-Y --function-name pulse-IngestFunction-Z --max-messages 10
  make redrive STACK=pulse DRY_RUN=1

AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> (SQS, KINESIS, LAMBDA, CLOUDFORMATION) are honoured.
exit status: 0 all Kinesis batches (with --set-aside: and set-aside records) redriven, 1 something stays in the
queue or an AWS call failed, 2 bad arguments. Read docs/redrive.md before the first run.
"""


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="redrive.py",
        description="Store the failed ingest batches of the Pulse dead-letter queue again, exactly (by invoking "
        "IngestFunction with the original records); list poison records.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--stack-name", help="read DeadLetterQueueUrl, StreamName and IngestFunctionName from this stack's outputs"
    )
    p.add_argument("--queue-url", help="the dead-letter queue (overrides the stack output)")
    p.add_argument("--stream-name", help="the stream the failed batches were read from (overrides the stack output)")
    p.add_argument(
        "--function-name", help="the ingest function to invoke (overrides the stack output IngestFunctionName)"
    )
    p.add_argument("--region", help="AWS region (default: AWS_DEFAULT_REGION / the AWS config)")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="read the queue and the stream and print what would be done; invoke, put and delete nothing",
    )
    p.add_argument("--max-messages", type=positive_int, metavar="N", help="read at most N messages")
    p.add_argument(
        "--delete-poison",
        action="store_true",
        help="delete the poison-record messages (bad data) after listing them; never the set-aside ones",
    )
    p.add_argument(
        "--set-aside",
        action="store_true",
        help="redrive the records ingest set aside after they failed every attempt (reason 'failed N "
        "attempts (...'), each alone, exactly, by invoking the function; deploy the fix first",
    )
    p.add_argument(
        "--reput",
        action="store_true",
        help="the old, inexact redrive: put the records back on the stream as new records. It counts "
        "twice whatever the discarded attempts stored (docs/redrive.md)",
    )
    p.add_argument(
        "--accept-loss",
        action="store_true",
        help="with --reput, for a batch of which some records expired: put the records still on the "
        "stream and delete the message (without it such a batch is left untouched)",
    )
    args = p.parse_args(argv)
    for name in ("stack_name", "queue_url", "stream_name", "function_name", "region"):
        value = getattr(args, name)
        if value is not None and not value.strip():
            p.error("--%s must not be empty" % name.replace("_", "-"))
    if not args.stack_name and not (args.queue_url and args.stream_name):
        p.error("give --stack-name, or both --queue-url and --stream-name")
    if not args.reput and not args.stack_name and not args.function_name:
        p.error("give --function-name (or --stack-name) for the exact redrive, or --reput")
    if args.accept_loss and not args.reput:
        p.error("--accept-loss needs --reput: the exact redrive stores a batch only with every one of its records")
    if args.set_aside and args.reput:
        p.error(
            "--set-aside needs the function: a set-aside record put back as a new record would not replace the "
            "slots its setting aside emptied; leave out --reput"
        )
    return args


def out(line=""):
    print(line, flush=True)


class Stats:
    def __init__(self, reput):
        self.sent_label = "put" if reput else "redriven"
        self.messages = 0
        self.batches_redriven = 0
        self.batches_left = 0
        self.records_sent = 0  # put on the stream (--reput) or sent to the function (exact mode)
        self.records_expired = 0
        self.poison_listed = 0
        self.poison_deleted = 0
        self.compaction_listed = 0
        self.other_listed = 0
        self.set_aside_listed = 0  # set-aside records left without --set-aside
        self.set_aside_redriven = 0
        self.set_aside_left = 0  # with --set-aside: refused or failed, kept in the queue

    def line(self, dry_run):
        verb = "would be " if dry_run else ""
        return (
            "summary%s: messages read %d, batches %sredriven %d, records %s%s %d, records expired %d, "
            "batches left %d, poison listed %d, poison %sdeleted %d, compaction listed %d, other listed %d, "
            "set aside listed %d, set aside %sredriven %d, set aside left %d"
            % (
                " (dry run, nothing changed)" if dry_run else "",
                self.messages,
                verb,
                self.batches_redriven,
                verb,
                self.sent_label,
                self.records_sent,
                self.records_expired,
                self.batches_left,
                self.poison_listed,
                verb,
                self.poison_deleted,
                self.compaction_listed,
                self.other_listed,
                self.set_aside_listed,
                verb,
                self.set_aside_redriven,
                self.set_aside_left,
            )
        )


def backoff(attempt):
    """Full jitter: a uniform delay in [0, min(cap, base * 2^attempt)]."""
    time.sleep(random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * (2**attempt))))


def error_code(e):
    return e.response.get("Error", {}).get("Code", "") if isinstance(e, ClientError) else ""


def stream_name_of(arn):
    """``arn:aws:kinesis:<region>:<account>:stream/<name>`` -> ``<name>`` (None if not such an ARN)."""
    parts = (arn or "").split(":", 5)
    if len(parts) == 6 and parts[2] == "kinesis" and parts[5].startswith("stream/"):
        return parts[5][len("stream/") :]
    return None


def region_of(arn):
    parts = (arn or "").split(":", 5)
    return parts[3] if len(parts) == 6 and parts[3] else None


# ------------------------------------------------------------------------------------- the redrive event


def arrival_seconds(timestamp):
    """GetRecords' ApproximateArrivalTimestamp (a datetime, millisecond precision) as the event source mapping
    writes it: epoch seconds with the milliseconds as fraction (1795262230.8)."""
    if timestamp.tzinfo is None:
        timestamp = timestamp.replace(tzinfo=datetime.timezone.utc)
    millis = (timestamp - EPOCH) // datetime.timedelta(milliseconds=1)
    return millis / 1000.0


def kinesis_event(records, shard_id, stream_arn, region):
    """The Lambda event the mapping would deliver for ``records`` (GetRecords dicts, shard order), as a redrive.

    Same shape as events/ingest-kinesis-native.json; ``eventName`` marks it as a redrive, and
    ``eventSourceARN`` is the stream's ARN, whose stream name is part of the shard's checkpoint key."""
    return {
        "Records": [
            {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": r["PartitionKey"],
                    "sequenceNumber": r["SequenceNumber"],
                    "data": base64.b64encode(r["Data"]).decode("ascii"),
                    "approximateArrivalTimestamp": arrival_seconds(r["ApproximateArrivalTimestamp"]),
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": "%s:%s" % (shard_id, r["SequenceNumber"]),
                "eventName": REDRIVE_EVENT_NAME,
                "awsRegion": region,
                "eventSourceARN": stream_arn,
            }
            for r in records
        ]
    }


def invoke(lam, function, payload):
    """Invokes ``function`` synchronously; returns None on success, else why it failed."""
    resp = lam.invoke(FunctionName=function, InvocationType="RequestResponse", Payload=payload)
    body = resp["Payload"].read() if resp.get("Payload") is not None else b""
    try:
        answer = json.loads(body.decode("utf-8")) if body else None
    except ValueError:
        answer = None
    if resp.get("FunctionError"):
        if isinstance(answer, dict) and answer.get("errorMessage") is not None:
            return "function error (%s) %s: %s" % (
                resp["FunctionError"],
                answer.get("errorType", "?"),
                answer["errorMessage"],
            )
        return "function error (%s): %s" % (resp["FunctionError"], body[:500].decode("utf-8", "replace"))
    if not isinstance(answer, dict):
        return "unexpected response (not a batch response): %s" % body[:500].decode("utf-8", "replace")
    failures = answer.get("batchItemFailures") or []
    if failures:
        return "the function reported batchItemFailures %s" % json.dumps(failures)
    return None


# ---------------------------------------------------------------------------------------------- the stream


class RangeRead:
    """The records of one shard between two sequence numbers, and how the read ended."""

    def __init__(self):
        self.records = []  # dicts from GetRecords, in shard order
        self.shard_gone = False


def read_range(kinesis, stream, shard_id, start, end):
    """Records of ``shard_id`` with start <= sequence number <= end (as integers), oldest first."""
    result = RangeRead()
    at_start = {"ShardIteratorType": "AT_SEQUENCE_NUMBER", "StartingSequenceNumber": str(start)}
    try:
        gave_up = follow(kinesis, stream, shard_id, at_start, start, end, result)
    except ClientError as e:
        if error_code(e) == "ResourceNotFoundException":  # the shard (or stream) is past retention
            result.shard_gone = True
            return result
        if error_code(e) != "InvalidArgumentException":
            raise
        gave_up = True  # a position Kinesis no longer has
    if not result.records and gave_up:
        # An iterator at a trimmed position can return empty pages for a long time; reading from the oldest
        # record on the shard tells at once what is left of the range.
        try:
            follow(kinesis, stream, shard_id, {"ShardIteratorType": "TRIM_HORIZON"}, start, end, result)
        except ClientError as e:
            if error_code(e) != "ResourceNotFoundException":
                raise
            result.shard_gone = True
    return result


def follow(kinesis, stream, shard_id, position, start, end, result):
    """Reads from ``position`` (GetShardIterator arguments) until past ``end``, the shard's end or its tip.

    Returns whether it gave up after EMPTY_PAGES_MAX empty pages in a row."""
    iterator = kinesis.get_shard_iterator(StreamName=stream, ShardId=shard_id, **position)["ShardIterator"]
    empty_pages = 0
    last_seq = None
    while iterator:
        try:
            page = kinesis.get_records(ShardIterator=iterator, Limit=GET_RECORDS_LIMIT)
        except ClientError as e:
            if error_code(e) != "ExpiredIteratorException":
                raise
            # Iterators live 5 minutes: continue after the last record read (or where this read began).
            again = (
                {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "StartingSequenceNumber": last_seq}
                if last_seq
                else position
            )
            iterator = kinesis.get_shard_iterator(StreamName=stream, ShardId=shard_id, **again)["ShardIterator"]
            continue
        records = page.get("Records", [])
        for r in records:
            seq = int(r["SequenceNumber"])
            last_seq = r["SequenceNumber"]
            if seq > end:
                return False
            if seq >= start:
                result.records.append(r)
        iterator = page.get("NextShardIterator")  # None: the end of a closed shard
        if records:
            empty_pages = 0
            continue
        if page.get("MillisBehindLatest", 0) == 0:  # at the tip: nothing more to read
            return False
        empty_pages += 1
        if empty_pages >= EMPTY_PAGES_MAX:
            return True
        time.sleep(0.2)  # GetRecords allows 5 calls per second per shard
    return False


def put_all(kinesis, stream, records):
    """Puts ``records`` (GetRecords dicts) with their data and partition keys; returns how many were put."""
    put = 0
    for chunk in chunks(records):
        n = put_chunk(kinesis, stream, chunk)
        put += n
        if n < len(chunk):
            break  # put no more of a batch that stays in the queue
    return put


def chunks(records):
    batch, size = [], 0
    for r in records:
        n = len(r["Data"]) + len(r["PartitionKey"].encode("utf-8"))
        if batch and (len(batch) == PUT_BATCH_RECORDS or size + n > PUT_BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(r)
        size += n
    if batch:
        yield batch


def put_chunk(kinesis, stream, chunk):
    """One PutRecords batch; failed entries (throttling, internal errors) are retried with backoff."""
    pending = [{"Data": r["Data"], "PartitionKey": r["PartitionKey"]} for r in chunk]
    put = 0
    last_error = None
    for attempt in range(PUT_ATTEMPTS):
        if attempt:
            backoff(attempt)
        try:
            resp = kinesis.put_records(StreamName=stream, Records=pending)
        except (ClientError, BotoCoreError) as e:
            last_error = str(e)
            continue
        failed = []
        for entry, res in zip(pending, resp["Records"]):
            if res.get("ErrorCode"):
                failed.append(entry)
                last_error = "%s: %s" % (res["ErrorCode"], res.get("ErrorMessage", ""))
            else:
                put += 1
        pending = failed
        if not pending:
            return put
    out("    %d records could not be put after %d attempts (last error %s)" % (len(pending), PUT_ATTEMPTS, last_error))
    return put


# ------------------------------------------------------------------------------------------------ the queue


class Redrive:
    def __init__(self, args, sqs, kinesis, lam, queue_url, stream, function, region):
        self.args = args
        self.sqs = sqs
        self.kinesis = kinesis
        self.lam = lam
        self.queue_url = queue_url
        self.stream = stream
        self.function = function
        self.region = region
        self.stream_arn = None  # looked up once, for failure records without streamArn
        self.stats = Stats(args.reput)
        self.kept = {}  # receipt handles of messages that stay, made visible again at the end
        self.seen = set()
        self.poison_keys = set()
        self.failed = False

    def run(self):
        try:
            while self.args.max_messages is None or self.stats.messages < self.args.max_messages:
                want = 10 if self.args.max_messages is None else min(10, self.args.max_messages - self.stats.messages)
                messages = self.sqs.receive_message(
                    QueueUrl=self.queue_url,
                    MaxNumberOfMessages=want,
                    WaitTimeSeconds=RECEIVE_WAIT_S,
                    VisibilityTimeout=VISIBILITY_S,
                    MessageAttributeNames=["All"],
                ).get("Messages", [])
                fresh = [m for m in messages if m["MessageId"] not in self.seen]
                if not fresh:
                    break
                for m in fresh:
                    self.seen.add(m["MessageId"])
                    self.stats.messages += 1
                    try:
                        self.handle(m)
                    except (ClientError, BotoCoreError) as e:
                        out("message %s: %s; left in the queue" % (m["MessageId"], e))
                        self.failed = True
                        self.keep(m)
        finally:
            self.release()
        return self.stats

    def handle(self, m):
        try:
            body = json.loads(m.get("Body", ""))
        except ValueError:
            body = None
        attrs = {k: v.get("StringValue") for k, v in m.get("MessageAttributes", {}).items()}
        if attrs.get("kind") == "poison" or (isinstance(body, dict) and body.get("kind") == "poison"):
            self.poison(m, body if isinstance(body, dict) else {}, attrs)
        elif isinstance(body, dict) and isinstance(body.get("KinesisBatchInfo"), dict):
            self.batch(m, body)
        elif isinstance(body, dict) and isinstance(body.get("DDBStreamBatchInfo"), dict):
            info = body["DDBStreamBatchInfo"]
            out(
                "compaction batch %s %s..%s (%s records, %s): no redrive needed, left in the queue "
                "(docs/redrive.md, \"Compaction failures\")"
                % (
                    info.get("shardId"),
                    info.get("startSequenceNumber"),
                    info.get("endSequenceNumber"),
                    info.get("batchSize"),
                    condition(body),
                )
            )
            self.stats.compaction_listed += 1
            self.keep(m)
        else:
            out("unrecognised message %s, left in the queue: %s" % (m["MessageId"], m.get("Body", "")[:200]))
            self.stats.other_listed += 1
            self.keep(m)

    def poison(self, m, body, attrs):
        shard = body.get("shardId") or attrs.get("shardId")
        seq = body.get("sequenceNumber") or attrs.get("sequenceNumber")
        repeat = (shard, seq) in self.poison_keys
        self.poison_keys.add((shard, seq))
        attempts = set_aside_attempts(body.get("reason"))
        if attempts is not None:
            self.set_aside(m, body, shard, seq, attempts, repeat)
            return
        self.stats.poison_listed += 1
        if self.args.delete_poison:
            if self.args.dry_run:
                action = "would be deleted"
                self.keep(m)
            else:
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=m["ReceiptHandle"])
                action = "deleted"
            self.stats.poison_deleted += 1
        else:
            action = "left"
            self.keep(m)
        out(
            "poison %s %s key=%s %s bytes%s: %s (%s)"
            % (
                shard,
                seq,
                json.dumps(body.get("partitionKey")),
                body.get("payloadBytes", "?"),
                " (repeat)" if repeat else "",
                json.dumps(body.get("reason")),
                action,
            )
        )

    def set_aside(self, m, body, shard, seq, attempts, repeat):
        """A record ingest set aside after it failed every attempt: listed, or with --set-aside redriven alone."""
        head = "set aside %s %s key=%s %s bytes%s" % (
            shard,
            seq,
            json.dumps(body.get("partitionKey")),
            body.get("payloadBytes", "?"),
            " (repeat)" if repeat else "",
        )
        if not self.args.set_aside:
            out(
                "%s: set aside after %s attempts; redrive with --set-aside once the cause is fixed (left): %s"
                % (head, attempts, json.dumps(body.get("reason")))
            )
            self.stats.set_aside_listed += 1
            self.keep(m)
            return
        record, where = self.set_aside_record(body, shard, seq)
        if record is None:
            out("%s: %s; not redriven, left in the queue" % (head, where))
            self.set_aside_left_in_queue(m)
            return
        stream_arn = self.lookup_stream_arn()
        payload = json.dumps(
            kinesis_event([record], shard, stream_arn, region_of(stream_arn) or self.region), separators=(",", ":")
        ).encode("utf-8")
        if len(payload) > INVOKE_PAYLOAD_MAX:
            out(
                "%s: the event would be %d bytes, more than Lambda's synchronous payload limit of %d; not redriven, "
                "left in the queue" % (head, len(payload), INVOKE_PAYLOAD_MAX)
            )
            self.set_aside_left_in_queue(m)
            return
        if self.args.dry_run:
            out(
                "%s: would invoke %s with the record alone (data from %s, %d bytes) and delete the message"
                % (head, self.function, where, len(payload))
            )
            self.stats.set_aside_redriven += 1
            self.keep(m)
            return
        try:
            why = invoke(self.lam, self.function, payload)
        except (ClientError, BotoCoreError) as e:
            why = "the invocation failed: %s" % e
        if why is not None:
            out("%s: redrive through %s failed, left in the queue: %s" % (head, self.function, why))
            self.set_aside_left_in_queue(m)
            return
        try:
            self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=m["ReceiptHandle"])
        except ClientError as e:
            out(
                "%s: redriven (stored by %s), but the message could not be deleted (%s): delete it by hand; "
                "redriving it again is harmless (the same partials are written again)"
                % (head, self.function, error_code(e))
            )
            self.failed = True
            return
        self.stats.set_aside_redriven += 1
        out("%s: stored by %s (data from %s), message deleted" % (head, self.function, where))

    def set_aside_left_in_queue(self, m):
        self.stats.set_aside_left += 1
        self.failed = True
        self.keep(m)

    def set_aside_record(self, body, shard, seq):
        """The set-aside Kinesis record as GetRecords returns it, with all its data: (record, where the data came
        from), or (None, why not). The message carries the data's first 1 KB and its size: when that is all of it
        (and the partition key was sent unaltered), the record is rebuilt from the message; otherwise it is read
        from the stream at its sequence number and checked against the message."""
        key = body.get("partitionKey")
        try:
            size = int(body["payloadBytes"])
            arrival = EPOCH + datetime.timedelta(milliseconds=int(body["approximateArrivalTimestamp"]))
            head = base64.b64decode(body["payloadHeadBase64"], validate=True)
        except (KeyError, TypeError, ValueError, OverflowError, binascii.Error):
            return None, (
                "the message lacks a valid payloadBytes, approximateArrivalTimestamp or payloadHeadBase64, "
                "so the record cannot be rebuilt"
            )
        if not shard or not seq or not seq.isdigit() or not isinstance(key, str) or not key:
            return None, "the message names no whole Kinesis record (shard, sequence number, partition key)"
        # DeadLetterQueue replaces characters SQS refuses with U+FFFD and cuts keys at 256 characters.
        key_intact = "\ufffd" not in key and len(key) <= 256
        if len(head) == size and key_intact:
            return {
                "SequenceNumber": seq,
                "PartitionKey": key,
                "Data": head,
                "ApproximateArrivalTimestamp": arrival,
            }, "the message"
        try:
            rng = read_range(self.kinesis, self.stream, shard, int(seq), int(seq))
        except (ClientError, BotoCoreError) as e:
            return None, (
                "the message holds %d of its %d bytes and the record could not be read from the stream (%s)"
                % (len(head), size, e)
            )
        found = rng.records[0] if rng.records else None
        if found is None or found["SequenceNumber"] != seq:
            return None, (
                "the message holds %d of its %d bytes and the record is no longer on %s (%s)"
                % (
                    len(head),
                    size,
                    self.stream,
                    "the shard is gone" if rng.shard_gone else "past the stream's retention",
                )
            )
        data = found["Data"]
        if len(data) != size or data[: len(head)] != head or (key_intact and found["PartitionKey"] != key):
            return None, (
                "the record %s of %s on %s is not the one the message describes (%d bytes, partition key %s)"
                % (seq, shard, self.stream, len(data), json.dumps(found["PartitionKey"]))
            )
        return found, "the stream"

    def batch(self, m, body):
        info = body["KinesisBatchInfo"]
        shard = info.get("shardId")
        try:
            start, end = int(info["startSequenceNumber"]), int(info["endSequenceNumber"])
            size = int(info["batchSize"]) if info.get("batchSize") is not None else None
        except (KeyError, TypeError, ValueError):
            out("malformed KinesisBatchInfo in %s, left in the queue: %s" % (m["MessageId"], json.dumps(info)))
            self.left(m)
            return
        head = "batch %s %s..%s (%s records, %s)" % (
            shard,
            start,
            end,
            size if size is not None else "?",
            condition(body),
        )
        source = stream_name_of(info.get("streamArn"))
        if source is not None and source != self.stream:
            out("%s: from stream %s, not %s; left in the queue" % (head, source, self.stream))
            self.left(m)
            return
        try:
            rng = read_range(self.kinesis, self.stream, shard, start, end)
        except (ClientError, BotoCoreError) as e:
            out("%s: could not read the range (%s); left in the queue" % (head, e))
            self.left(m)
            return
        records = rng.records
        found = len(records)
        if not records:
            self.stats.records_expired += size or 0
            out(
                "%s: no record of the range is on the stream (%s); not redriven, left in the queue"
                % (head, "the shard is gone" if rng.shard_gone else "past the stream's retention")
            )
            self.left(m)
            return
        if size is not None and found > size:
            out(
                "%s: the range holds %d records, more than the batch's %d (ParallelizationFactor > 1 interleaves "
                "other lanes' records, which were ingested); not redriven, left in the queue" % (head, found, size)
            )
            self.left(m)
            return
        if self.args.reput:
            self.reput(m, head, start, size, records)
        else:
            self.exact(m, head, info, shard, start, end, size, records)

    def exact(self, m, head, info, shard, start, end, size, records):
        """Invokes the ingest function with exactly the batch's records; refuses what it cannot do exactly."""
        found = len(records)
        first, last = records[0]["SequenceNumber"], records[-1]["SequenceNumber"]
        if int(first) != start:
            lost = (size - found) if size is not None else None
            self.stats.records_expired += lost or 0
            out(
                "%s: its first record %s is past the stream's retention (the oldest still readable is %s; %s of %s "
                "records lost); an exact redrive needs every record, not redriven, left in the queue"
                % (head, start, first, lost if lost is not None else "some", size if size is not None else "?")
            )
            self.left(m)
            return
        if int(last) != end or (size is not None and found != size):
            out(
                "%s: the range could not be read completely (%d records read, %s to %s; the batch had %s, %s to %s); "
                "not redriven, left in the queue"
                % (head, found, first, last, size if size is not None else "?", start, end)
            )
            self.left(m)
            return
        stream_arn = info.get("streamArn") or self.lookup_stream_arn()
        region = region_of(stream_arn) or self.region
        payload = json.dumps(kinesis_event(records, shard, stream_arn, region), separators=(",", ":")).encode("utf-8")
        if len(payload) > INVOKE_PAYLOAD_MAX:
            out(
                "%s: the event would be %d bytes, more than Lambda's synchronous payload limit of %d; not redriven, "
                "left in the queue" % (head, len(payload), INVOKE_PAYLOAD_MAX)
            )
            self.left(m)
            return
        if self.args.dry_run:
            out(
                "%s: would invoke %s with the %d records (%d bytes) and delete the message"
                % (head, self.function, found, len(payload))
            )
            self.stats.batches_redriven += 1
            self.stats.records_sent += found
            self.keep(m)
            return
        try:
            why = invoke(self.lam, self.function, payload)
        except (ClientError, BotoCoreError) as e:
            why = "the invocation failed: %s" % e
        if why is not None:
            out("%s: redrive through %s failed, left in the queue: %s" % (head, self.function, why))
            self.left(m)
            return
        self.stats.records_sent += found
        try:
            self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=m["ReceiptHandle"])
        except ClientError as e:
            out(
                "%s: redriven (%d records stored by %s), but the message could not be deleted (%s): delete it by "
                "hand; redriving it again is harmless (the same partials are written again)"
                % (head, found, self.function, error_code(e))
            )
            self.failed = True
            return
        self.stats.batches_redriven += 1
        out("%s: %d records stored by %s, message deleted" % (head, found, self.function))

    def lookup_stream_arn(self):
        if self.stream_arn is None:
            self.stream_arn = self.kinesis.describe_stream_summary(StreamName=self.stream)["StreamDescriptionSummary"][
                "StreamARN"
            ]
        return self.stream_arn

    def reput(self, m, head, start, size, records):
        """--reput: puts the records back on the stream as new records (not exact: docs/redrive.md)."""
        found = len(records)
        lost = (size - found) if size is not None else 0
        if lost:
            self.stats.records_expired += lost
            why = (
                "past the stream's retention"
                if int(records[0]["SequenceNumber"]) != start
                else "not found on the shard"
            )
            if not self.args.accept_loss:
                out(
                    "%s: %d of %d records lost (%s), %d still readable; not redriven, left in the queue "
                    "(--accept-loss puts those and deletes the message)" % (head, lost, size, why, found)
                )
                self.left(m)
                return
            out(
                "%s: %d of %d records lost (%s); --accept-loss: redriving the %d still readable"
                % (head, lost, size, why, found)
            )
        if self.args.dry_run:
            keys = sorted({r["PartitionKey"] for r in records})
            out(
                "%s: would put %d records (partition keys %s) on %s and delete the message"
                % (head, found, ", ".join(keys[:5]) + (", ..." if len(keys) > 5 else ""), self.stream)
            )
            self.stats.batches_redriven += 1
            self.stats.records_sent += found
            self.keep(m)
            return
        put = put_all(self.kinesis, self.stream, records)
        self.stats.records_sent += put
        if put < found:
            out(
                "%s: put %d of %d records; left in the queue. The %d put records are on the stream again: "
                "running the redrive again would put them twice (docs/redrive.md)" % (head, put, found, put)
            )
            self.left(m)
            return
        try:
            self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=m["ReceiptHandle"])
        except ClientError as e:
            out(
                "%s: put %d records, but the message could not be deleted (%s): delete it by hand, or a later "
                "run puts the records again" % (head, put, error_code(e))
            )
            self.failed = True
            return
        self.stats.batches_redriven += 1
        out("%s: put %d records on %s, message deleted" % (head, put, self.stream))

    def left(self, m):
        self.stats.batches_left += 1
        self.failed = True
        self.keep(m)

    def keep(self, m):
        self.kept[m["MessageId"]] = m["ReceiptHandle"]

    def release(self):
        """Makes every message that stays visible again, so the next run (or an operator) sees it at once."""
        items = list(self.kept.items())
        for i in range(0, len(items), 10):
            entries = [
                {"Id": str(n), "ReceiptHandle": h, "VisibilityTimeout": 0} for n, (_, h) in enumerate(items[i : i + 10])
            ]
            try:
                resp = self.sqs.change_message_visibility_batch(QueueUrl=self.queue_url, Entries=entries)
                if resp.get("Failed"):
                    out(
                        "warning: %d messages stay hidden until their visibility timeout (%d s) ends"
                        % (len(resp["Failed"]), VISIBILITY_S)
                    )
            except (ClientError, BotoCoreError) as e:
                out(
                    "warning: could not make %d messages visible again (%s); they reappear after %d s"
                    % (len(entries), e, VISIBILITY_S)
                )


def set_aside_attempts(reason):
    """How many attempts a set-aside record failed, from its DLQ reason; None for any other poison reason."""
    match = SET_ASIDE_REASON.match(reason) if isinstance(reason, str) else None
    return int(match.group(1)) if match else None


def condition(body):
    ctx = body.get("requestContext") or {}
    text = ctx.get("condition", "?")
    if ctx.get("approximateInvokeCount") is not None:
        text += ", invoked %s times" % ctx["approximateInvokeCount"]
    return text


# ------------------------------------------------------------------------------------------------------ main


def resolve(args, session, config):
    queue_url, stream, function = args.queue_url, args.stream_name, args.function_name
    need_function = not args.reput
    if args.stack_name and not (queue_url and stream and (function or not need_function)):
        cfn = session.client("cloudformation", config=config)
        stacks = cfn.describe_stacks(StackName=args.stack_name)["Stacks"]
        outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
        wanted = [("DeadLetterQueueUrl", queue_url), ("StreamName", stream)]
        if need_function:
            wanted.append(("IngestFunctionName", function))
        missing = [k for k, given in wanted if not given and k not in outputs]
        if missing:
            raise RuntimeError("stack %s has no output %s" % (args.stack_name, " or ".join(missing)))
        queue_url = queue_url or outputs["DeadLetterQueueUrl"]
        stream = stream or outputs["StreamName"]
        if need_function:
            function = function or outputs["IngestFunctionName"]
    return queue_url, stream, function


REPUT_WARNING = (
    "warning: --reput puts the failed batches' records back on the stream as NEW records (new sequence "
    "numbers and arrival times). Whatever the discarded attempts stored stays in the table, so it is "
    "counted twice. Without --reput the batch is stored exactly (docs/redrive.md).\n"
)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    config = Config(retries={"mode": "standard", "max_attempts": 8})
    # A repeated Invoke is harmless (a redrive writes the same items again), but one that outlives the read
    # timeout must not be cut short: the function may run up to its timeout.
    invoke_config = Config(
        retries={"mode": "standard", "max_attempts": 3}, read_timeout=INVOKE_READ_TIMEOUT_S, connect_timeout=10
    )
    if args.reput:
        sys.stderr.write(REPUT_WARNING)
        sys.stderr.flush()
    redrive = None
    try:
        session = boto3.session.Session(region_name=args.region)
        queue_url, stream, function = resolve(args, session, config)
        out(
            "redrive%s: queue %s, stream %s, %s"
            % (
                " (dry run)" if args.dry_run else "",
                queue_url,
                stream,
                "--reput (records put back on the stream)" if args.reput else "function " + function,
            )
        )
        lam = None if args.reput else session.client("lambda", config=invoke_config)
        redrive = Redrive(
            args,
            session.client("sqs", config=config),
            session.client("kinesis", config=config),
            lam,
            queue_url,
            stream,
            function,
            session.region_name,
        )
        redrive.run()
    except (ClientError, BotoCoreError, RuntimeError) as e:
        sys.stderr.write("redrive.py: %s\n" % e)
        if redrive is not None:
            out(redrive.stats.line(args.dry_run))
        return 1
    out(redrive.stats.line(args.dry_run))
    return 1 if redrive.failed else 0


if __name__ == "__main__":
    sys.exit(main())
