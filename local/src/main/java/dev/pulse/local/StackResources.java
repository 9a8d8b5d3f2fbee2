/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.local.template.Bindings;
import dev.pulse.local.template.PseudoParameters;
import dev.pulse.local.template.SamTemplate;
import dev.pulse.local.template.Stack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Creates the template's tables, streams and queues in the emulators, from their resolved Properties, and
 * answers {@code Ref} and {@code Fn::GetAtt} for every resource: the real names and ARNs of what was created,
 * and consistent made-up ones for what has no local counterpart (KMS keys, IAM roles, log groups).
 */
final class StackResources implements Bindings {

    /** Shards of an ON_DEMAND stream: what Kinesis gives a new on-demand stream. */
    static final int ON_DEMAND_SHARDS = 4;

    private final SamTemplate template;
    private final PseudoParameters pseudo;
    private final Map<String, String> refs = new HashMap<>();
    /**
     * The value of every generated secret locally (the metric stream endpoint's access key): the bundled Firehose events
     * (events/metricstream-*.json, scripts/gen_metric_stream.py) present it.
     */
    static final String LOCAL_SECRET_VALUE = "pulse-local-firehose-access-key";

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();
    private final Map<String, String> attrs = new HashMap<>();
    private final Map<String, String> queueUrlsByArn = new LinkedHashMap<>();
    private final List<String> notEmulated = new ArrayList<>();
    private final List<String> topicArns = new ArrayList<>();
    private Stack stack;

    StackResources(SamTemplate template, String stackName) {
        this.template = template;
        this.pseudo = PseudoParameters.local(stackName);
    }

    /** The resolved stack; resources are created against it before functions are resolved. */
    void bind(Stack stack) {
        this.stack = stack;
    }

    void create(
            DynamoDbClient dynamo, KinesisClient kinesis, SqsClient sqs, SecretsManagerClient secrets, SnsClient sns)
            throws InterruptedException {
        for (String id : template.resourceIds("AWS::DynamoDB::Table")) {
            createTable(id, stack.resolvedProperties(id), dynamo);
        }
        for (String id : template.resourceIds("AWS::Kinesis::Stream")) {
            createStream(id, stack.resolvedProperties(id), kinesis);
        }
        for (String id : template.resourceIds("AWS::SQS::Queue")) {
            createQueue(id, stack.resolvedProperties(id), sqs);
        }
        for (String id : template.resourceIds("AWS::SecretsManager::Secret")) {
            createSecret(id, stack.resolvedProperties(id), secrets);
        }
        // The alert topic exists only while the stack creates it (no AlertTopicArn given): stack.resourceIds applies
        // the template's conditions.
        for (String id : stack.resourceIds("AWS::SNS::Topic")) {
            createTopic(id, stack.resolvedProperties(id), sns);
        }
        // The metric stream's delivery path (MetricStreamNamespaces set): AWS's side, which no emulator here has.
        for (String type :
                List.of("AWS::CloudWatch::MetricStream", "AWS::KinesisFirehose::DeliveryStream", "AWS::S3::Bucket")) {
            stack.resourceIds(type).forEach(id -> notEmulated.add(id + " (" + type + ")"));
        }
        for (String type : List.of("AWS::KMS::Key", "AWS::IAM::Role", "AWS::Logs::LogGroup")) {
            template.resourceIds(type).forEach(id -> notEmulated.add(id + " (" + type + ")"));
        }
        // TableCapacityMode PROVISIONED: DynamoDB Local creates the table with its capacity but enforces none.
        for (String type :
                List.of("AWS::ApplicationAutoScaling::ScalableTarget", "AWS::ApplicationAutoScaling::ScalingPolicy")) {
            stack.resourceIds(type).forEach(id -> notEmulated.add(id + " (" + type + ")"));
        }
    }

    /** Resources that exist only as names locally (no encryption at rest, no IAM, logs go to files, no auto scaling). */
    List<String> notEmulated() {
        return notEmulated;
    }

    /** Every topic's ARN, as the backend answered CreateTopic. */
    List<String> topicArns() {
        return List.copyOf(topicArns);
    }

    /** Every queue's URL. */
    List<String> queueUrls() {
        return List.copyOf(queueUrlsByArn.values());
    }

    /** The queue URL behind an SQS ARN (on-failure destinations name queues by ARN). */
    String queueUrl(String arn) {
        String url = queueUrlsByArn.get(arn);
        if (url == null) {
            throw new IllegalArgumentException(
                    "no local queue with ARN " + arn + "; queues: " + queueUrlsByArn.keySet());
        }
        return url;
    }

    private String name(String id, JsonNode props, String nameProperty) {
        String n = props.path(nameProperty).asText("");
        return n.isEmpty() ? pseudo.stackName() + "-" + id : n;
    }

    private void createTable(String id, JsonNode p, DynamoDbClient dynamo) {
        String name = name(id, p, "TableName");
        CreateTableRequest.Builder b = CreateTableRequest.builder().tableName(name);
        List<AttributeDefinition> defs = new ArrayList<>();
        p.path("AttributeDefinitions")
                .forEach(a -> defs.add(AttributeDefinition.builder()
                        .attributeName(a.path("AttributeName").asText())
                        .attributeType(a.path("AttributeType").asText())
                        .build()));
        b.attributeDefinitions(defs).keySchema(keys(p.path("KeySchema")));
        boolean onDemand = p.path("BillingMode").asText("PROVISIONED").equals("PAY_PER_REQUEST");
        if (onDemand) {
            b.billingMode(BillingMode.PAY_PER_REQUEST);
        } else {
            b.billingMode(BillingMode.PROVISIONED).provisionedThroughput(throughput(p.path("ProvisionedThroughput")));
        }
        List<GlobalSecondaryIndex> gsis = new ArrayList<>();
        p.path("GlobalSecondaryIndexes").forEach(g -> {
            GlobalSecondaryIndex.Builder gb = GlobalSecondaryIndex.builder()
                    .indexName(g.path("IndexName").asText())
                    .keySchema(keys(g.path("KeySchema")))
                    .projection(Projection.builder()
                            .projectionType(
                                    g.path("Projection").path("ProjectionType").asText("ALL"))
                            .nonKeyAttributes(texts(g.path("Projection").path("NonKeyAttributes")))
                            .build());
            if (!onDemand) {
                gb.provisionedThroughput(throughput(g.path("ProvisionedThroughput")));
            }
            gsis.add(gb.build());
        });
        if (!gsis.isEmpty()) {
            b.globalSecondaryIndexes(gsis);
        }
        var table = createReplacing(dynamo, b.build());
        JsonNode ttl = p.path("TimeToLiveSpecification");
        if (ttl.path("Enabled").asBoolean(false)) {
            dynamo.updateTimeToLive(t -> t.tableName(name)
                    .timeToLiveSpecification(s -> s.enabled(true)
                            .attributeName(ttl.path("AttributeName").asText())));
        }
        refs.put(id, name);
        attrs.put(id + ".Arn", table.tableArn());
    }

    /**
     * Creates the table; one of the same name (a previous run's, in an already running LocalStack) is deleted
     * first, so every run starts from the template's empty table as a fresh emulator gives it.
     */
    private static software.amazon.awssdk.services.dynamodb.model.TableDescription createReplacing(
            DynamoDbClient dynamo, CreateTableRequest request) {
        try {
            return dynamo.createTable(request).tableDescription();
        } catch (software.amazon.awssdk.services.dynamodb.model.ResourceInUseException e) {
            dynamo.deleteTable(d -> d.tableName(request.tableName()));
            dynamo.waiter().waitUntilTableNotExists(d -> d.tableName(request.tableName()));
            return dynamo.createTable(request).tableDescription();
        }
    }

    private static List<KeySchemaElement> keys(JsonNode schema) {
        List<KeySchemaElement> keys = new ArrayList<>();
        schema.forEach(k -> keys.add(KeySchemaElement.builder()
                .attributeName(k.path("AttributeName").asText())
                .keyType(k.path("KeyType").asText())
                .build()));
        return keys;
    }

    private static ProvisionedThroughput throughput(JsonNode t) {
        return ProvisionedThroughput.builder()
                .readCapacityUnits(t.path("ReadCapacityUnits").asLong(5))
                .writeCapacityUnits(t.path("WriteCapacityUnits").asLong(5))
                .build();
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private void createStream(String id, JsonNode p, KinesisClient kinesis) throws InterruptedException {
        String name = name(id, p, "Name");
        int shards = p.has("ShardCount") ? p.path("ShardCount").asInt() : ON_DEMAND_SHARDS;
        try {
            kinesis.createStream(b -> b.streamName(name).shardCount(shards));
        } catch (software.amazon.awssdk.services.kinesis.model.ResourceInUseException e) {
            // A previous run's stream in an already running LocalStack: replaced, as the table is.
            kinesis.deleteStream(b -> b.streamName(name).enforceConsumerDeletion(true));
            for (int i = 0; i < 400; i++) {
                try {
                    kinesis.describeStreamSummary(b -> b.streamName(name));
                    Thread.sleep(50);
                } catch (software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException gone) {
                    break;
                }
            }
            kinesis.createStream(b -> b.streamName(name).shardCount(shards));
        }
        for (int i = 0; i < 400; i++) {
            var d = kinesis.describeStreamSummary(b -> b.streamName(name)).streamDescriptionSummary();
            if (d.streamStatus() == StreamStatus.ACTIVE) {
                refs.put(id, name);
                attrs.put(id + ".Arn", d.streamARN());
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("stream " + name + " did not become ACTIVE");
    }

    /** A topic, named as CloudFormation names it; its Ref is the ARN the backend gives it (its own account id). */
    private void createTopic(String id, JsonNode p, SnsClient sns) {
        String name = name(id, p, "TopicName");
        String arn = sns.createTopic(b -> b.name(name)).topicArn();
        refs.put(id, arn);
        attrs.put(id + ".TopicArn", arn);
        attrs.put(id + ".TopicName", name);
        topicArns.add(arn);
    }

    private void createQueue(String id, JsonNode p, SqsClient sqs) {
        String name = name(id, p, "QueueName");
        Map<QueueAttributeName, String> a = new HashMap<>();
        for (String attr : List.of(
                "MessageRetentionPeriod",
                "VisibilityTimeout",
                "DelaySeconds",
                "MaximumMessageSize",
                "ReceiveMessageWaitTimeSeconds",
                "FifoQueue",
                "ContentBasedDeduplication")) {
            if (p.has(attr)) {
                a.put(QueueAttributeName.fromValue(attr), p.path(attr).asText());
            }
        }
        String url = sqs.createQueue(b -> b.queueName(name).attributes(a)).queueUrl();
        // A queue of that name that already held messages (a previous run's, in an already running LocalStack)
        // starts empty, so what the run finds there is its own.
        long depth = sqs
                .getQueueAttributes(b -> b.queueUrl(url)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes()
                .values()
                .stream()
                .mapToLong(Long::parseLong)
                .sum();
        if (depth > 0) {
            sqs.purgeQueue(b -> b.queueUrl(url));
        }
        String arn = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
        refs.put(id, url);
        attrs.put(id + ".Arn", arn);
        attrs.put(id + ".QueueName", name);
        attrs.put(id + ".QueueUrl", url);
        queueUrlsByArn.put(arn, url);
    }

    /**
     * A secret whose value CloudFormation would generate ({@code GenerateSecretString}) gets a fixed one locally, so the
     * bundled events can present it: the generated key ({@code GenerateStringKey}) set to {@link #LOCAL_SECRET_VALUE}
     * in the template's JSON object. A secret of the same name (a previous run's, in a running LocalStack) is replaced.
     */
    private void createSecret(String id, JsonNode p, SecretsManagerClient secrets) {
        String name = name(id, p, "Name");
        JsonNode generate = p.path("GenerateSecretString");
        String value;
        try {
            com.fasterxml.jackson.databind.node.ObjectNode o = generate.has("SecretStringTemplate")
                    ? (com.fasterxml.jackson.databind.node.ObjectNode)
                            JSON.readTree(generate.path("SecretStringTemplate").asText("{}"))
                    : JSON.createObjectNode();
            if (generate.has("GenerateStringKey")) {
                o.put(generate.path("GenerateStringKey").asText(), LOCAL_SECRET_VALUE);
            }
            value = p.has("SecretString") ? p.path("SecretString").asText() : o.toString();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(id + ": SecretStringTemplate is not JSON", e);
        }
        try {
            secrets.deleteSecret(r -> r.secretId(name).forceDeleteWithoutRecovery(true));
        } catch (software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException e) {
            // a fresh backend
        }
        String arn = secrets.createSecret(r -> r.name(name).secretString(value)).arn();
        refs.put(id, arn);
        attrs.put(id + ".Id", arn);
    }

    @Override
    public String ref(String logicalId) {
        String r = refs.get(logicalId);
        if (r != null) {
            return r;
        }
        String type = template.resource(logicalId).path("Type").asText();
        return switch (type) {
            // What a Ref returns for these types in CloudFormation: a name, made up consistently here.
            case "AWS::Serverless::Function", "AWS::Lambda::Function" -> functionName(logicalId);
            case "AWS::Logs::LogGroup" ->
                stack.resolvedProperties(logicalId)
                        .path("LogGroupName")
                        .asText("/aws/" + pseudo.stackName() + "/" + logicalId);
            case "AWS::Serverless::HttpApi", "AWS::Serverless::Api" -> logicalId.toLowerCase(Locale.ROOT) + "local";
            case "AWS::Serverless::LayerVersion" ->
                "arn:aws:lambda:" + pseudo.region() + ":" + pseudo.accountId() + ":layer:" + logicalId + ":1";
            // A topic's Ref is its ARN (the rules evaluator checks ALERT_TOPIC_ARN is one).
            case "AWS::SNS::Topic" ->
                "arn:aws:sns:" + pseudo.region() + ":" + pseudo.accountId() + ":"
                        + stack.resolvedProperties(logicalId)
                                .path("TopicName")
                                .asText(pseudo.stackName() + "-" + logicalId);
            default -> pseudo.stackName() + "-" + logicalId;
        };
    }

    private String functionName(String logicalId) {
        return stack.function(logicalId).functionName();
    }

    @Override
    public String getAtt(String logicalId, String attribute) {
        String a = attrs.get(logicalId + "." + attribute);
        if (a != null) {
            return a;
        }
        if (!attribute.equals("Arn")) {
            throw new IllegalArgumentException("Fn::GetAtt " + logicalId + "." + attribute + " has no local value");
        }
        String type = template.resource(logicalId).path("Type").asText();
        String region = pseudo.region();
        String account = pseudo.accountId();
        return switch (type) {
            case "AWS::Serverless::Function", "AWS::Lambda::Function" ->
                "arn:aws:lambda:" + region + ":" + account + ":function:" + functionName(logicalId);
            case "AWS::IAM::Role" -> "arn:aws:iam::" + account + ":role/" + ref(logicalId);
            case "AWS::KMS::Key" -> "arn:aws:kms:" + region + ":" + account + ":key/" + ref(logicalId);
            case "AWS::Logs::LogGroup" ->
                "arn:aws:logs:" + region + ":" + account + ":log-group:" + ref(logicalId) + ":*";
            default ->
                "arn:aws:" + type.split("::", -1)[1].toLowerCase(Locale.ROOT) + ":" + region + ":" + account + ":"
                        + logicalId;
        };
    }

    @Override
    public PseudoParameters pseudo() {
        return pseudo;
    }
}
