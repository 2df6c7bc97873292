package autoswitch.cluster;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.EpochEntryCache;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.header.controller.GetMetaDataResponseHeader;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The cluster's clients, one JVM per use:
 * <ul>
 * <li>{@code setup NAMESRV BROKER_NAME BROKERS TOPIC QUEUES SECONDS}: waits for a master and BROKERS brokers of the set,
 * creates TOPIC on each, waits for its route; prints one JSON line;</li>
 * <li>{@code produce NAMESRV TOPIC HISTORY PAUSE_MS SEND_TIMEOUT_MS}: sends unique messages synchronously, one at a time,
 * each written to HISTORY as an invoke line and then ok / fail / unknown, until "stop" or the end of stdin;</li>
 * <li>{@code read NAMESRV TOPIC OUT}: pulls every queue of TOPIC from offset 0 to its end, one JSON line per message;</li>
 * <li>{@code watch NAMESRV CONTROLLERS BROKER_NAME OUT PERIOD_MS}: polls the controller's sync state data and metadata
 * and each broker's epoch cache, one JSON line per poll; CONTROLLERS is one address or several separated by ';' (each
 * poll asks them in turn until one answers: the admin API then asks the leader it names).</li>
 * </ul>
 */
public final class Client {
    /** How often the clients ask the name server for the topic's route (RocketMQ's default: 30 s). */
    static final int ROUTE_POLL_MILLIS = 1000;
    /** The pause after a send that was not acknowledged, so that an outage does not flood the history. */
    static final long BACKOFF_MILLIS = 100;
    /** How long the producer may finish its send in flight once its stdin closed. */
    static final long SEND_GRACE_MILLIS = 5000;

    private Client() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        String mode = args.length > 0 ? args[0] : "";
        try {
            run(mode, args);
        } catch (Throwable e) {
            // a client's RocketMQ threads would keep a failed JVM alive: say why and go
            System.out.println("{\"ok\":false,\"error\":" + Json.str(Json.error(e)) + "}");
            System.out.flush();
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.exit(0);
    }

    private static void run(String mode, String[] args) throws Exception {
        switch (mode) {
            case "setup":
                Stdin.exitWhenClosed();
                setup(args[1], args[2], Integer.parseInt(args[3]), args[4], Integer.parseInt(args[5]), Long.parseLong(args[6]));
                break;
            case "produce":
                produce(args[1], args[2], args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]));
                break;
            case "read":
                Stdin.exitWhenClosed();
                read(args[1], args[2], args[3]);
                break;
            case "watch":
                Stdin.exitWhenClosed();
                watch(args[1], args[2], args[3], args[4], Long.parseLong(args[5]));
                break;
            default:
                System.err.println("usage: Client setup|produce|read|watch ...");
                System.exit(2);
        }
    }

    private static DefaultMQAdminExt admin(String namesrv) throws MQClientException {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(5000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName("autoswitch-admin-" + ProcessHandle.current().pid());
        admin.start();
        return admin;
    }

    private static void setup(String namesrv, String brokerName, int brokers, String topic, int queues, long seconds)
        throws Exception {
        DefaultMQAdminExt admin = admin(namesrv);
        long deadline = System.currentTimeMillis() + seconds * 1000;
        String last = "nothing yet";
        while (System.currentTimeMillis() < deadline) {
            try {
                ClusterInfo cluster = admin.examineBrokerClusterInfo();
                BrokerData set = cluster.getBrokerAddrTable().get(brokerName);
                if (set == null || set.getBrokerAddrs().get(MixAll.MASTER_ID) == null || set.getBrokerAddrs().size() < brokers) {
                    last = "broker set " + brokerName + ": " + (set == null ? "not registered" : set.getBrokerAddrs());
                    Thread.sleep(500);
                    continue;
                }
                TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
                for (String addr : set.getBrokerAddrs().values()) {
                    admin.createAndUpdateTopicConfig(addr, config);
                }
                TopicRouteData route = admin.examineTopicRouteInfo(topic);
                boolean routed = route != null && !route.getQueueDatas().isEmpty() && route.getBrokerDatas().stream()
                    .anyMatch(b -> b.getBrokerAddrs().get(MixAll.MASTER_ID) != null);
                if (routed) {
                    System.out.println("{\"ok\":true,\"brokers\":" + Json.str(set.getBrokerAddrs().toString()) + "}");
                    admin.shutdown();
                    return;
                }
                last = "topic " + topic + " has no route yet";
            } catch (Exception e) {
                last = Json.error(e);
            }
            Thread.sleep(500);
        }
        System.out.println("{\"ok\":false,\"error\":" + Json.str("not ready after " + seconds + " s: " + last) + "}");
        admin.shutdown();
    }

    private static void produce(String namesrv, String topic, String history, long pauseMillis, int sendTimeout)
        throws Exception {
        final boolean[] stop = {false};
        Stdin.onLines(line -> {
            if (line == null || line.trim().equals("stop")) {
                synchronized (stop) {
                    stop[0] = true;
                }
            }
            if (line == null) {
                // the parent is gone: the send in flight may finish and be written, but the JVM goes regardless
                Thread halt = new Thread(() -> {
                    try {
                        Thread.sleep(SEND_GRACE_MILLIS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    Runtime.getRuntime().halt(0);
                }, "autoswitch-halt");
                halt.setDaemon(true);
                halt.start();
            }
        }, false);
        DefaultMQProducer producer = new DefaultMQProducer("autoswitch-producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("autoswitch-producer-" + ProcessHandle.current().pid());
        producer.setSendMsgTimeout(sendTimeout);
        producer.setRetryTimesWhenSendFailed(0);
        producer.setRetryAnotherBrokerWhenNotStoreOK(false);
        producer.setPollNameServerInterval(ROUTE_POLL_MILLIS);
        producer.start();
        try (Writer out = new OutputStreamWriter(new FileOutputStream(history, true), StandardCharsets.UTF_8)) {
            for (int n = 1; ; n++) {
                synchronized (stop) {
                    if (stop[0]) {
                        break;
                    }
                }
                String id = String.format("m%06d", n);
                line(out, "{\"op\":\"invoke\",\"id\":\"" + id + "\",\"t\":" + System.currentTimeMillis() + "}");
                Message message = new Message(topic, "autoswitch", id, id.getBytes(StandardCharsets.UTF_8));
                String result;
                try {
                    SendResult sent = producer.send(message);
                    MessageQueue queue = sent.getMessageQueue();
                    String op = sent.getSendStatus() == SendStatus.SEND_OK ? "ok" : "unknown";
                    result = "{\"op\":\"" + op + "\",\"id\":\"" + id + "\",\"t\":" + System.currentTimeMillis()
                        + ",\"status\":\"" + sent.getSendStatus() + "\",\"broker\":" + Json.str(queue.getBrokerName())
                        + ",\"queue\":" + queue.getQueueId() + ",\"offset\":" + sent.getQueueOffset()
                        + ",\"msg_id\":" + Json.str(sent.getOffsetMsgId()) + "}";
                } catch (Exception e) {
                    result = "{\"op\":\"" + classify(e) + "\",\"id\":\"" + id + "\",\"t\":" + System.currentTimeMillis()
                        + ",\"error\":" + Json.str(Json.error(e)) + "}";
                }
                line(out, result);
                if (pauseMillis > 0 || !result.startsWith("{\"op\":\"ok\"")) {
                    Thread.sleep(result.startsWith("{\"op\":\"ok\"") ? pauseMillis : Math.max(pauseMillis, BACKOFF_MILLIS));
                }
            }
        }
        producer.shutdown();
    }

    /** fail: the message was certainly not stored (never sent, or refused by the broker); unknown: it may have been. */
    static String classify(Throwable error) {
        Throwable cause = error;
        while (cause instanceof MQClientException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RemotingConnectException || cause instanceof RemotingTooMuchRequestException
            || cause instanceof MQBrokerException || cause instanceof MQClientException) {
            return "fail";
        }
        return "unknown";
    }

    private static void line(Writer out, String text) throws IOException {
        out.write(text);
        out.write('\n');
        out.flush();
    }

    private static void read(String namesrv, String topic, String outPath) throws Exception {
        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer("autoswitch-reader");
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("autoswitch-reader-" + ProcessHandle.current().pid());
        consumer.setPollNameServerInterval(ROUTE_POLL_MILLIS);
        consumer.start();
        List<MessageQueue> queues = new ArrayList<>(consumer.fetchSubscribeMessageQueues(topic));
        Collections.sort(queues);
        Map<String, Long> ends = new TreeMap<>();
        int read = 0;
        try (Writer out = new OutputStreamWriter(new FileOutputStream(outPath), StandardCharsets.UTF_8)) {
            for (MessageQueue queue : queues) {
                long offset = 0;
                int errors = 0;
                while (true) {
                    PullResult pulled;
                    try {
                        pulled = consumer.pull(queue, "*", offset, 32, 5000);
                    } catch (Exception e) {
                        if (++errors > 20) {
                            throw e;
                        }
                        Thread.sleep(500);
                        continue;
                    }
                    if (pulled.getMsgFoundList() != null) {
                        for (MessageExt message : pulled.getMsgFoundList()) {
                            line(out, "{\"id\":" + Json.str(message.getKeys()) + ",\"broker\":" + Json.str(queue.getBrokerName())
                                + ",\"queue\":" + queue.getQueueId() + ",\"offset\":" + message.getQueueOffset()
                                + ",\"commit_offset\":" + message.getCommitLogOffset()
                                + ",\"msg_id\":" + Json.str(message.getMsgId()) + "}");
                            read++;
                        }
                    }
                    if (pulled.getNextBeginOffset() <= offset && pulled.getMsgFoundList() == null) {
                        break;
                    }
                    offset = pulled.getNextBeginOffset();
                    if (offset >= pulled.getMaxOffset()) {
                        break;
                    }
                }
                ends.put(queue.getBrokerName() + "/" + queue.getQueueId(), offset);
            }
        }
        StringBuilder json = new StringBuilder("{\"ok\":true,\"read\":" + read + ",\"queues\":{");
        String sep = "";
        for (Map.Entry<String, Long> end : ends.entrySet()) {
            json.append(sep).append(Json.str(end.getKey())).append(':').append(end.getValue());
            sep = ",";
        }
        System.out.println(json.append("}}"));
        consumer.shutdown();
    }

    private static void watch(String namesrv, String controllers, String brokerName, String outPath, long period)
        throws Exception {
        DefaultMQAdminExt admin = admin(namesrv);
        String[] addresses = controllers.split(";");
        int next = 0;
        try (Writer out = new OutputStreamWriter(new FileOutputStream(outPath, true), StandardCharsets.UTF_8)) {
            while (true) {
                StringBuilder json = new StringBuilder();
                try {
                    GetMetaDataResponseHeader meta = null;
                    BrokerReplicasInfo info = null;
                    Exception failed = null;
                    // the controller that answered last first, then the others
                    for (int k = 0; k < addresses.length && info == null; k++) {
                        String controller = addresses[(next + k) % addresses.length];
                        try {
                            meta = admin.getControllerMetaData(controller);
                            if (meta.getControllerLeaderAddress() == null) {
                                throw new IllegalStateException(controller + " knows no controller leader");
                            }
                            info = admin.getInSyncStateData(controller, List.of(brokerName));
                            next = (next + k) % addresses.length;
                        } catch (Exception e) {
                            failed = e;
                        }
                    }
                    if (info == null) {
                        throw failed;
                    }
                    // stamped when the answer is in: what it shows happened at or before this time
                    json.append("{\"t\":").append(System.currentTimeMillis());
                    json.append(",\"controller_leader\":").append(Json.str(meta.getControllerLeaderId()));
                    json.append(",\"controller_leader_address\":").append(Json.str(meta.getControllerLeaderAddress()));
                    BrokerReplicasInfo.ReplicasInfo replicas = info.getReplicasInfoTable().get(brokerName);
                    if (replicas != null) {
                        json.append(",\"master_id\":").append(replicas.getMasterBrokerId())
                            .append(",\"master_address\":").append(Json.str(replicas.getMasterAddress()))
                            .append(",\"master_epoch\":").append(replicas.getMasterEpoch())
                            .append(",\"sync_state_set_epoch\":").append(replicas.getSyncStateSetEpoch())
                            .append(",\"in_sync\":").append(identities(replicas.getInSyncReplicas()))
                            .append(",\"not_in_sync\":").append(identities(replicas.getNotInSyncReplicas()));
                        json.append(",\"epoch_caches\":{");
                        String sep = "";
                        List<BrokerReplicasInfo.ReplicaIdentity> all = new ArrayList<>(replicas.getInSyncReplicas());
                        all.addAll(replicas.getNotInSyncReplicas());
                        for (BrokerReplicasInfo.ReplicaIdentity replica : all) {
                            json.append(sep).append(Json.str(String.valueOf(replica.getBrokerId()))).append(':');
                            sep = ",";
                            try {
                                EpochEntryCache cache = admin.getBrokerEpochCache(replica.getBrokerAddress());
                                json.append("{\"max_offset\":").append(cache.getMaxOffset()).append(",\"epochs\":[");
                                String comma = "";
                                for (EpochEntry entry : cache.getEpochList()) {
                                    json.append(comma).append('[').append(entry.getEpoch()).append(',')
                                        .append(entry.getStartOffset()).append(',').append(entry.getEndOffset()).append(']');
                                    comma = ",";
                                }
                                json.append("]}");
                            } catch (Exception e) {
                                json.append("{\"error\":").append(Json.str(Json.error(e))).append('}');
                            }
                        }
                        json.append('}');
                    }
                } catch (Exception e) {
                    json.setLength(0);
                    json.append("{\"t\":").append(System.currentTimeMillis());
                    json.append(",\"error\":").append(Json.str(Json.error(e)));
                }
                line(out, json.append('}').toString());
                Thread.sleep(period);
            }
        }
    }

    private static String identities(List<BrokerReplicasInfo.ReplicaIdentity> replicas) {
        StringBuilder json = new StringBuilder("[");
        String sep = "";
        for (BrokerReplicasInfo.ReplicaIdentity replica : replicas) {
            json.append(sep).append("{\"id\":").append(replica.getBrokerId()).append(",\"address\":")
                .append(Json.str(replica.getBrokerAddress())).append(",\"alive\":").append(replica.getAlive()).append('}');
            sep = ",";
        }
        return json.append(']').toString();
    }
}
