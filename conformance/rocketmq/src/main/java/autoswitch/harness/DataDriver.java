package autoswitch.harness;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageExtBrokerInner;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.MessageArrivingListener;
import org.apache.rocketmq.store.PutMessageResult;
import org.apache.rocketmq.store.config.BrokerRole;
import org.apache.rocketmq.store.config.FlushDiskType;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.ha.HAConnection;
import org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAService;
import org.apache.rocketmq.store.stats.BrokerStatsManager;

/**
 * RocketMQ's data path in one JVM, set up as its own AutoSwitchHATest sets it up: each broker id a real
 * DefaultMessageStore (controller mode, so an AutoSwitchHAService with its epoch file) in a folder of its own, with
 * its HA port free on 127.0.0.1, replicating over real HA connections. The caller plays the controller and the
 * ReplicasManager: it opens and closes stores, makes one a master (changeToMaster, setSyncStateSet) and others its
 * slaves (changeToSlave, updateHaMasterAddress), puts messages, and awaits a store reaching an offset, each wait
 * bounded. Every message has the same size, so byte offsets are message counts times that size; the view gives both.
 */
final class DataDriver implements Driver {
    private static final String TOPIC = "autoswitch";
    private static final long SHUTDOWN_MS = 10_000;
    private static final int END_FILE_MIN_BLANK_LENGTH = 4 + 4;  // CommitLog's: a message leaves room for a blank
    private static final boolean ADDRESS_KEYED = !hasMethod("getLocalSyncStateSet");  // 5.0.0 and 5.1.0
    private final Map<Long, Broker> brokers = new TreeMap<>();
    private Path root;
    private long messageSize = -1;
    private int nextBody;
    private final Map<String, CompletableFuture<PutMessageResult>> puts = new TreeMap<>();  // the async puts, by body

    private static final class Broker {
        final long id;
        final MessageStoreConfig config;
        final int haPort;
        DefaultMessageStore store;
        Link link;
        Stepper stepper;  // a slave whose HA frames pass one step at a time (the data-path walks)
        long masterId = -1;  // a slave's master
        volatile JsonArray proposed = new JsonArray();  // the last syncStateSet the HA service proposed to its listener

        Broker(long id, MessageStoreConfig config, int haPort) {
            this.id = id;
            this.config = config;
            this.haPort = haPort;
        }

        AutoSwitchHAService ha() {
            return (AutoSwitchHAService) store.getHaService();
        }

        String haAddress() {
            return "127.0.0.1:" + haPort;
        }
    }

    @Override
    public JsonObject handle(String op, JsonObject r) throws Exception {
        switch (op) {
            case "reset":
                close();
                root = Files.createTempDirectory("autoswitch-data-");
                messageSize = -1;
                nextBody = 0;
                puts.clear();
                return new JsonObject();
            case "open":
                return open(r);
            case "close":
                return close(broker(r));
            case "master":
                return master(r);
            case "slave":
                return slave(r);
            case "put":
                return put(r);
            case "await":
                return await(r);
            case "view":
                return view(broker(r));
            case "syncStateSet":
                return syncStateSet(r);
            case "hold":
                return hold(r);
            case "step":
                return step(r);
            default:
                throw new IllegalArgumentException("unknown data operation " + op);
        }
    }

    private Broker broker(JsonObject r) {
        Broker b = brokers.get(r.get("id").getAsLong());
        if (b == null || b.store == null) {
            throw new IllegalArgumentException("broker " + r.get("id") + " is not open");
        }
        return b;
    }

    /** A store for broker id (new, or the one closed before, on the same folder: its data recovered by load()). */
    private JsonObject open(JsonObject r) throws Exception {
        long id = r.get("id").getAsLong();
        Broker b = brokers.get(id);
        if (b == null) {
            MessageStoreConfig c = new MessageStoreConfig();
            String dir = root.resolve("broker-" + id).toString();
            c.setStorePathRootDir(dir);
            c.setStorePathCommitLog(dir + File.separator + "commitlog");
            c.setStorePathEpochFile(dir + File.separator + "EpochFileCache");
            c.setMappedFileSizeCommitLog(r.has("mappedFileSize") ? r.get("mappedFileSize").getAsInt() : 1024 * 1024);
            c.setMappedFileSizeConsumeQueue(1024 * 1024);
            c.setMaxHashSlotNum(10000);
            c.setMaxIndexNum(100 * 100);
            c.setFlushDiskType(FlushDiskType.SYNC_FLUSH);
            c.setFlushIntervalConsumeQueue(1);
            c.setHaSendHeartbeatInterval(200);
            c.setSyncFlushTimeout(r.has("ackTimeoutMs") ? r.get("ackTimeoutMs").getAsInt() : 2000);
            c.setAllAckInSyncStateSet(r.has("allAck") && r.get("allAck").getAsBoolean());
            c.setAsyncLearner(r.has("asyncLearner") && r.get("asyncLearner").getAsBoolean());
            c.setSyncFromLastFile(r.has("syncFromLastFile") && r.get("syncFromLastFile").getAsBoolean());
            if (r.has("stepped") && r.get("stepped").getAsBoolean()) {  // nothing expires or shrinks by time in a walk
                c.setHaHousekeepingInterval(600_000);
                c.setHaMaxTimeSlaveNotCatchup(600_000);
                // the consume queue is not compared; dispatching past confirmOffset keeps 5.3.x's ReputMessageService
                // from spinning while confirmOffset lags (#9811), which also holds its store's shutdown for 90 s
                if (Arrays.stream(MessageStoreConfig.class.getMethods()).anyMatch(m -> m.getName().equals("setReadUnCommitted"))) {
                    call(c, "setReadUnCommitted", new Class<?>[] {boolean.class}, true);  // 5.2.0 on
                }
            }
            c.setBrokerRole(BrokerRole.SLAVE);
            int port = freePort();
            c.setHaListenPort(port);
            b = new Broker(id, c, port);
            brokers.put(id, b);
        }
        if (b.store != null) {
            throw new IllegalArgumentException("broker " + id + " is open");
        }
        b.config.setBrokerRole(BrokerRole.SLAVE);  // a broker in controller mode starts as a slave, until its role comes
        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setBrokerId(id);
        brokerConfig.setEnableControllerMode(true);
        b.store = newStore(b.config, brokerConfig);
        if (!b.store.load()) {
            throw new IllegalStateException("broker " + id + ": load() failed");
        }
        b.store.start();
        if (ADDRESS_KEYED) {
            call(b.ha(), "setLocalAddress", new Class<?>[] {String.class}, address(id));
        } else {  // as ReplicasManager tells it its id (5.1.1: setBrokerControllerId)
            call(b.ha(), hasMethod("setLocalBrokerId") ? "setLocalBrokerId" : "setBrokerControllerId", new Class<?>[] {Long.class}, id);
        }
        Broker opened = b;
        Consumer<Object> listener = set -> opened.proposed = ids(set);  // where ReplicasManager sends AlterSyncStateSet
        call(b.ha(), "registerSyncStateSetChangedListener", new Class<?>[] {Consumer.class}, listener);
        JsonObject answer = view(b);
        answer.addProperty("haAddress", b.haAddress());
        return answer;
    }

    private JsonObject close(Broker b) throws IOException, InterruptedException {
        boolean hung = shutdown(b.store);
        b.store = null;
        unlink(b);
        JsonObject answer = new JsonObject();
        answer.addProperty("closed", b.id);
        answer.addProperty("shutdownHung", hung);
        return answer;
    }

    /** ReplicasManager.changeToMaster's store half: SYNC_MASTER, changeToMaster(epoch), then the controller's set. */
    private JsonObject master(JsonObject r) throws Exception {
        Broker b = broker(r);
        b.config.setBrokerRole(r.has("sync") && !r.get("sync").getAsBoolean() ? BrokerRole.ASYNC_MASTER : BrokerRole.SYNC_MASTER);
        boolean changed = b.ha().changeToMaster(r.get("epoch").getAsInt());
        unlink(b);  // changeToMaster shut its HA client down
        call(b.ha(), "setSyncStateSet", new Class<?>[] {Set.class}, members(r.getAsJsonArray("syncStateSet")));
        JsonObject answer = view(b);
        answer.addProperty("returns", changed);
        return answer;
    }

    /** The controller's answer reaching a master (ReplicasManager: setSyncStateSet), which recomputes confirmOffset. */
    private JsonObject syncStateSet(JsonObject r) throws Exception {
        Broker b = broker(r);
        call(b.ha(), "setSyncStateSet", new Class<?>[] {Set.class}, members(r.getAsJsonArray("syncStateSet")));
        return view(b);
    }

    /** Hold (or release) the master's bytes on their way to slave id; the slave must have been made one over a link. */
    private JsonObject hold(JsonObject r) {
        Broker b = broker(r);
        if (b.link == null) {
            throw new IllegalArgumentException("broker " + b.id + " is not a slave over a link");
        }
        b.link.hold(r.get("hold").getAsBoolean());
        return view(b);
    }

    /** A data-path step on slave id's stepped connection (Stepper.step), then the slave's view. */
    private JsonObject step(JsonObject r) throws Exception {
        Broker b = broker(r);
        if (b.stepper == null) {
            throw new IllegalArgumentException("broker " + b.id + " is not a stepped slave");
        }
        String kind = r.get("kind").getAsString();
        long timeout = r.get("timeoutMs").getAsLong();
        JsonObject answer = b.stepper.step(kind, r.has("offset") ? r.get("offset").getAsLong() : -1, timeout);
        Broker master = brokers.get(b.masterId);
        if (answer.get("taken").getAsBoolean() && master != null && master.store != null) {
            long deadline = System.currentTimeMillis() + timeout;
            long offset = answer.get("offset").getAsLong();
            if (kind.equals("transfer")) {  // the slave appended the message
                long end = offset + answer.get("bodySize").getAsLong();
                while (b.store.getMaxPhyOffset() < end && System.currentTimeMillis() < deadline) {
                    Thread.sleep(5);
                }
            } else {  // the master read the report
                while (!acked(master, b.id, offset) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(5);
                }
            }
            settle(b, master, deadline);
        }
        answer.add("view", view(b));
        return answer;
    }

    private static boolean acked(Broker master, long slave, long offset) {
        for (HAConnection c : master.ha().getConnectionList()) {
            Object id = call(c, ADDRESS_KEYED ? "getSlaveAddress" : "getSlaveId", new Class<?>[0]);
            if (id != null && idOf(id) == slave && c.getSlaveAckOffset() == offset) {
                return true;
            }
        }
        return false;
    }

    /**
     * Wait until what the step's frame set off has run: the two stores' views the same four times 25 ms apart (a
     * master sets a report's ack before it recomputes confirmOffset; on a loaded machine 30 ms was once too short).
     */
    private void settle(Broker slave, Broker master, long deadline) throws InterruptedException {
        String last = "";
        int same = 0;
        while (same < 4 && System.currentTimeMillis() < deadline) {
            String now = view(slave).toString() + view(master).toString();
            same = now.equals(last) ? same + 1 : 0;
            last = now;
            Thread.sleep(25);
        }
    }

    private static void unlink(Broker b) throws IOException {
        if (b.link != null) {
            b.link.close();
            b.link = null;
        }
        if (b.stepper != null) {
            b.stepper.close();
            b.stepper = null;
        }
    }

    /**
     * ReplicasManager.changeToSlave's store half: SLAVE, changeToSlave, then the master's HA address, or with link a
     * holdable forwarder to it (with pass: holding all but the master's first pass bytes).
     */
    private JsonObject slave(JsonObject r) throws IOException {
        Broker b = broker(r);
        Broker master = brokers.get(r.get("master").getAsLong());
        b.config.setBrokerRole(BrokerRole.SLAVE);
        boolean changed = b.ha().changeToSlave("", r.get("epoch").getAsInt(), b.id);
        b.masterId = master.id;
        unlink(b);
        String address = master.haAddress();
        if (r.has("stepped") && r.get("stepped").getAsBoolean()) {
            b.stepper = new Stepper(address);
            address = b.stepper.address();
        } else if (r.has("link") && r.get("link").getAsBoolean()) {
            b.link = new Link(address, r.has("pass") ? r.get("pass").getAsLong() : Long.MAX_VALUE);
            address = b.link.address();
        }
        b.ha().updateHaMasterAddress(address);
        if (b.stepper != null && b.ha().getHAClient() != null) {  // connect now, not after the client's 5 s back-off
            call(b.ha().getHAClient(), "wakeup", new Class<?>[0]);
        }
        JsonObject answer = view(b);
        answer.addProperty("returns", changed);
        return answer;
    }

    private JsonObject put(JsonObject r) throws IOException {
        Broker b = broker(r);
        MessageExtBrokerInner msg = new MessageExtBrokerInner();
        String body = r.has("body") ? r.get("body").getAsString() : String.format("m%06d", nextBody++);
        msg.setTopic(TOPIC);
        msg.setTags("autoswitch");
        msg.setKeys(body);
        msg.setBody(body.getBytes(StandardCharsets.UTF_8));
        msg.setQueueId(0);
        msg.setSysFlag(0);
        msg.setBornTimestamp(0);
        msg.setStoreHost(new InetSocketAddress(InetAddress.getLoopbackAddress(), 10911));
        msg.setBornHost(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        msg.setPropertiesString(MessageDecoder.messageProperties2String(msg.getProperties()));
        JsonObject answer = new JsonObject();
        if (r.has("async") && r.get("async").getAsBoolean()) {
            return putAsync(b, msg, body, answer);
        }
        PutMessageResult result = b.store.putMessage(msg);
        answer.addProperty("status", result.getPutMessageStatus().name());
        answer.addProperty("body", body);
        if (result.getAppendMessageResult() != null && result.getAppendMessageResult().getWroteBytes() > 0) {
            long size = result.getAppendMessageResult().getWroteBytes();
            if (messageSize >= 0 && messageSize != size) {
                throw new IllegalStateException("messages differ in size: " + messageSize + " and " + size);
            }
            messageSize = size;
            answer.addProperty("wroteOffset", result.getAppendMessageResult().getWroteOffset());
        }
        answer.add("view", view(b));
        return answer;
    }

    /**
     * The put a producer waits for, not waited for here: the message is appended when asyncPutMessage returns, and its
     * future completes when the store acknowledges it (the view's puts). The first one sets haTransferBatchSize to a
     * message's size, so that the master sends one message per HA frame.
     */
    private JsonObject putAsync(Broker b, MessageExtBrokerInner msg, String body, JsonObject answer) {
        long before = b.store.getMaxPhyOffset();
        CompletableFuture<PutMessageResult> future = b.store.asyncPutMessage(msg);
        long size = b.store.getMaxPhyOffset() - before;
        if (size > 0) {
            if (messageSize >= 0 && messageSize != size) {
                throw new IllegalStateException("messages differ in size: " + messageSize + " and " + size);
            }
            messageSize = size;
            for (Broker other : brokers.values()) {
                other.config.setHaTransferBatchSize((int) size);
            }
            answer.addProperty("wroteOffset", before);
        }
        puts.put(body, future);
        answer.addProperty("status", future.isDone() ? future.join().getPutMessageStatus().name() : "PENDING");
        answer.addProperty("body", body);
        answer.add("view", view(b));
        return answer;
    }

    /** Wait (bounded) until broker id's field (maxPhyOffset or confirmOffset, in bytes) is at least the value. */
    private JsonObject await(JsonObject r) throws InterruptedException {
        Broker b = broker(r);
        String field = r.get("field").getAsString();
        long atLeast = r.get("atLeast").getAsLong();
        long deadline = System.currentTimeMillis() + r.get("timeoutMs").getAsLong();
        JsonObject view = view(b);
        while (view.get(field).getAsLong() < atLeast && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            view = view(b);
        }
        view.addProperty("reached", view.get(field).getAsLong() >= atLeast);
        return view;
    }

    /** What the store shows: offsets in bytes, its epoch entries, role and HA state, and the bodies of its messages. */
    private JsonObject view(Broker b) {
        JsonObject v = new JsonObject();
        DefaultMessageStore s = b.store;
        v.addProperty("id", b.id);
        v.addProperty("messageSize", messageSize);
        v.addProperty("maxPhyOffset", s.getMaxPhyOffset());
        v.addProperty("minPhyOffset", s.getMinPhyOffset());
        v.addProperty("confirmOffset", s.getConfirmOffset());
        v.addProperty("role", b.config.getBrokerRole().name());
        JsonArray epochs = new JsonArray();
        for (EpochEntry e : b.ha().getEpochEntries()) {
            JsonArray pair = new JsonArray();
            pair.add(e.getEpoch());
            pair.add(e.getStartOffset());
            epochs.add(pair);
        }
        v.add("epochs", epochs);
        v.add("syncStateSet", ids(call(b.ha(), "getSyncStateSet", new Class<?>[0])));
        // 5.1.0 has one set (no synchronizing union): its set is the local one
        v.add("localSyncStateSet", ids(call(b.ha(), ADDRESS_KEYED ? "getSyncStateSet" : "getLocalSyncStateSet", new Class<?>[0])));
        JsonObject acks = new JsonObject();
        List<HAConnection> connections = b.ha().getConnectionList();
        for (HAConnection c : connections) {
            Object slave = call(c, ADDRESS_KEYED ? "getSlaveAddress" : "getSlaveId", new Class<?>[0]);
            if (slave != null && idOf(slave) >= 0) {  // null or -1: the connection has not had its handshake yet
                acks.addProperty(String.valueOf(idOf(slave)), c.getSlaveAckOffset());
            }
        }
        v.add("acks", acks);
        v.add("proposed", b.proposed);
        v.addProperty("client", b.ha().getHAClient() == null ? "NONE" : b.ha().getHAClient().getCurrentState().name());
        JsonArray bodies = new JsonArray();
        JsonArray offsets = new JsonArray();
        long fileSize = b.config.getMappedFileSizeCommitLog();
        if (messageSize > 0) {
            long offset = s.getMinPhyOffset();
            while (offset + messageSize <= s.getMaxPhyOffset()) {
                if (offset % fileSize + messageSize + END_FILE_MIN_BLANK_LENGTH > fileSize) {
                    offset += fileSize - offset % fileSize;  // the blank that ends a file: the next message starts the next file
                    continue;
                }
                MessageExt m = s.lookMessageByOffset(offset);
                bodies.add(m == null ? null : new String(m.getBody(), StandardCharsets.UTF_8));
                offsets.add(offset);
                offset += messageSize;
            }
        }
        v.add("bodies", bodies);
        JsonObject statuses = new JsonObject();
        puts.forEach((body, f) -> statuses.addProperty(body, f.isDone() ? f.join().getPutMessageStatus().name() : "PENDING"));
        v.add("puts", statuses);
        v.add("offsets", offsets);
        v.addProperty("fileSize", fileSize);
        return v;
    }

    /**
     * Shut a store down, waiting at most SHUTDOWN_MS: a service thread that does not stop (a ReputMessageService
     * spinning in doReput was seen) would hold shutdown for its 90 s join; it is left behind, and true says so.
     */
    private static boolean shutdown(DefaultMessageStore store) throws InterruptedException {
        Thread t = new Thread(store::shutdown, "autoswitch-shutdown");
        t.setDaemon(true);
        t.start();
        t.join(SHUTDOWN_MS);
        if (t.isAlive()) {
            System.err.println("a store's shutdown did not end within " + SHUTDOWN_MS + " ms; left behind");
            return true;
        }
        return false;
    }

    /** DefaultMessageStore's constructor: 5.1.1 on also takes the topic config table. */
    private static DefaultMessageStore newStore(MessageStoreConfig config, BrokerConfig brokerConfig) throws Exception {
        BrokerStatsManager stats = new BrokerStatsManager("autoswitch", true);
        for (Constructor<?> c : DefaultMessageStore.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 5 && p[0] == MessageStoreConfig.class && p[3] == BrokerConfig.class
                && p[4].isAssignableFrom(ConcurrentHashMap.class)) {
                return (DefaultMessageStore) c.newInstance(config, stats, null, brokerConfig, new ConcurrentHashMap<>());
            }
        }
        return DefaultMessageStore.class.getConstructor(MessageStoreConfig.class, BrokerStatsManager.class,
            MessageArrivingListener.class, BrokerConfig.class).newInstance(config, stats, null, brokerConfig);
    }

    private static boolean hasMethod(String name) {
        return Arrays.stream(AutoSwitchHAService.class.getMethods()).anyMatch(m -> m.getName().equals(name));
    }

    /** A broker id's address, by which 5.0.0 and 5.1.0 name a syncStateSet's members and a slave's connection. */
    private static String address(long id) {
        return "10.0.0." + id + ":30911";
    }

    /** The ids as the HA service's syncStateSet holds them: Long ids, or (5.1.0) addresses. */
    private static Set<Object> members(JsonArray ids) {
        Set<Object> set = new HashSet<>();
        for (JsonElement e : ids) {
            set.add(ADDRESS_KEYED ? address(e.getAsLong()) : e.getAsLong());
        }
        return set;
    }

    /** A member of a syncStateSet or a connection's slave, as a broker id. */
    private static long idOf(Object member) {
        if (member instanceof Long) {
            return (Long) member;
        }
        String a = (String) member;
        return Long.parseLong(a.substring("10.0.0.".length(), a.indexOf(':')));
    }

    private static JsonArray ids(Object set) {
        TreeSet<Long> sorted = new TreeSet<>();
        for (Object m : (Set<?>) set) {
            sorted.add(idOf(m));
        }
        return (JsonArray) Harness.tree(sorted);
    }

    /** A public method of a RocketMQ object whose signature differs between releases. */
    private static Object call(Object owner, String method, Class<?>[] types, Object... args) {
        try {
            return owner.getClass().getMethod(method, types).invoke(owner, args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        for (Broker b : brokers.values()) {
            if (b.store != null) {
                try {
                    shutdown(b.store);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                b.store = null;
            }
            unlink(b);
        }
        brokers.clear();
        if (root != null) {
            Harness.deleteTree(root);
            root = null;
        }
    }
}
