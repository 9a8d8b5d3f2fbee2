package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Date;

/** Builds Kinesis event records the way the event source mapping delivers them. */
public final class KinesisRecords {

    private static final BigInteger SEQ_BASE = new BigInteger("49590338271490256608559692538361571095921575989136000000");

    private KinesisRecords() {
    }

    /** A 56-digit sequence number; increasing with {@code n}, as within a shard. */
    public static String sequence(long n) {
        return SEQ_BASE.add(BigInteger.valueOf(n)).toString();
    }

    public static KinesisEvent.KinesisEventRecord record(String shardId, long n, String partitionKey, byte[] data,
            long arrivalMillis) {
        KinesisEvent.Record k = new KinesisEvent.Record();
        k.setSequenceNumber(sequence(n));
        k.setPartitionKey(partitionKey);
        k.setData(ByteBuffer.wrap(data));
        k.setApproximateArrivalTimestamp(new Date(arrivalMillis));
        k.setKinesisSchemaVersion("1.0");
        KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
        r.setKinesis(k);
        r.setEventID(shardId + ":" + k.getSequenceNumber());
        r.setEventSource("aws:kinesis");
        r.setEventName("aws:kinesis:record");
        r.setEventSourceARN("arn:aws:kinesis:us-east-1:123456789012:stream/pulse-test");
        r.setAwsRegion("us-east-1");
        return r;
    }
}
