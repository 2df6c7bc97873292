package autoswitch.harness;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.rocketmq.common.ControllerConfig;
import org.apache.rocketmq.controller.elect.impl.DefaultElectPolicy;
import org.apache.rocketmq.controller.helper.BrokerValidPredicate;
import org.apache.rocketmq.controller.impl.event.ControllerResult;
import org.apache.rocketmq.controller.impl.event.EventMessage;
import org.apache.rocketmq.controller.impl.event.EventSerializer;
import org.apache.rocketmq.controller.impl.heartbeat.BrokerIdentityInfo;
import org.apache.rocketmq.controller.impl.heartbeat.BrokerLiveInfo;
import org.apache.rocketmq.controller.impl.heartbeat.DefaultBrokerHeartbeatManager;
import org.apache.rocketmq.controller.impl.manager.BrokerReplicaInfo;
import org.apache.rocketmq.controller.impl.manager.ReplicasInfoManager;
import org.apache.rocketmq.controller.impl.manager.SyncStateInfo;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.apache.rocketmq.remoting.protocol.body.ElectMasterResponseBody;
import org.apache.rocketmq.remoting.protocol.body.SyncStateSet;
import org.apache.rocketmq.remoting.protocol.header.controller.AlterSyncStateSetRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.ElectMasterRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.GetReplicaInfoRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.admin.CleanControllerBrokerDataRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.register.ApplyBrokerIdRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.register.GetNextBrokerIdRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.controller.register.RegisterBrokerToControllerRequestHeader;

/**
 * The controller's state machine as a DLedger controller leader runs it: a request is proposed by
 * ReplicasInfoManager on the applied state, and its events, whatever the response code, are serialised by
 * EventSerializer, read back and applied by ReplicasInfoManager.applyEvent (DLedgerControllerStateMachine.onApply).
 * Liveness is a DefaultBrokerHeartbeatManager fed by the caller's heartbeats and expiries, wired as ControllerManager
 * wires it: isBrokerActive is the predicate, getBrokerLiveInfo the election policy's ranking data.
 *
 * <p>A heartbeat's timeout is a day, so an entry lives until the caller expires it; an expiry closes the entry's
 * channel (onBrokerChannelClose), one of the two ways the real manager drops an entry (the other is its timed scan).
 * The manager's lifecycle listeners are not registered: the re-election they would start is the caller's own step.
 */
final class ControllerDriver implements Driver {
    private static final long TIMEOUT_MILLIS = 24L * 3600 * 1000;
    private static final Set<String> REQUESTS = Set.of("GetNextBrokerId", "ApplyBrokerId", "RegisterBrokerToController",
        "ElectMaster", "AlterSyncStateSet", "GetReplicaInfo", "GetSyncStateData", "CleanBrokerData");

    private final EventSerializer serializer = new EventSerializer();
    private ControllerConfig config;
    private ReplicasInfoManager manager;
    private DefaultBrokerHeartbeatManager heartbeats;
    private BrokerValidPredicate alive;
    private DefaultElectPolicy policy;

    ControllerDriver() {
        reset(false);
    }

    @Override
    public JsonObject handle(String op, JsonObject r) throws Exception {
        switch (op) {
            case "reset":
                reset(r.get("unclean").getAsBoolean());
                return new JsonObject();
            case "request":
                return request(r);
            case "heartbeat":
                return heartbeat(r);
            case "expire":
                return expire(r);
            case "failover":
                newHeartbeats();
                return new JsonObject();
            case "lose":
                reset(config.isEnableElectUncleanMaster());
                return new JsonObject();
            case "scan":
                return scan();
            case "state": {
                JsonObject answer = new JsonObject();
                answer.add("state", state(r.get("cluster").getAsString(), r.get("broker").getAsString()));
                return answer;
            }
            default:
                throw new IllegalArgumentException("unknown controller operation " + op);
        }
    }

    private void reset(boolean unclean) {
        config = new ControllerConfig();
        config.setEnableElectUncleanMaster(unclean);
        manager = new ReplicasInfoManager(config);
        newHeartbeats();
    }

    /** A controller leader's fresh liveness table: ControllerManager builds one per controller node. */
    private void newHeartbeats() {
        if (heartbeats != null) {
            heartbeats.shutdown();
        }
        heartbeats = new DefaultBrokerHeartbeatManager(config);
        heartbeats.initialize();
        DefaultBrokerHeartbeatManager h = heartbeats;
        alive = h::isBrokerActive;
        policy = new DefaultElectPolicy(h::isBrokerActive, h::getBrokerLiveInfo);
    }

    @Override
    public void close() {
        if (heartbeats != null) {
            heartbeats.shutdown();
        }
    }

    /**
     * One request: proposed on the applied state, then its events applied. Where the proposal itself throws (a bug of
     * that release: 5.1.1's alterSyncStateSet with no master), the state machine applies nothing and the caller sees a
     * failed request: the answer's code is "THROWS" and the exception, and the state is read as it is.
     */
    private JsonObject request(JsonObject r) throws Exception {
        String cluster = r.get("cluster").getAsString();
        String broker = r.get("broker").getAsString();
        if (!REQUESTS.contains(r.get("tag").getAsString())) {
            throw new IllegalArgumentException("unknown controller request " + r.get("tag"));
        }
        ControllerResult<?> result;
        try {
            result = propose(r, cluster, broker);
        } catch (RuntimeException e) {
            JsonObject answer = new JsonObject();
            answer.addProperty("code", "THROWS " + e.getClass().getSimpleName());
            answer.addProperty("exception", e.toString());
            answer.add("response", new JsonObject());
            answer.add("body", new JsonObject());
            answer.add("events", new JsonArray());
            answer.add("state", state(cluster, broker));
            return answer;
        }
        String tag = r.get("tag").getAsString();
        JsonArray events = new JsonArray();
        for (EventMessage event : result.getEvents()) {
            EventMessage applied = serializer.deserialize(serializer.serialize(event));
            manager.applyEvent(applied);
            events.add(applied.getEventType().name());
        }
        JsonObject answer = new JsonObject();
        answer.addProperty("code", Harness.codeName(result.getResponseCode()));
        answer.add("response", result.getResponse() == null ? new JsonObject() : Harness.tree(result.getResponse()));
        answer.add("body", body(tag, result.getBody()));
        answer.add("events", events);
        answer.add("state", state(cluster, broker));
        return answer;
    }

    private ControllerResult<?> propose(JsonObject r, String cluster, String broker) {
        String tag = r.get("tag").getAsString();
        ControllerResult<?> result;
        switch (tag) {
            case "GetNextBrokerId":
                result = manager.getNextBrokerId(new GetNextBrokerIdRequestHeader(cluster, broker));
                break;
            case "ApplyBrokerId":
                result = manager.applyBrokerId(new ApplyBrokerIdRequestHeader(cluster, broker,
                    r.get("brokerId").getAsLong(), r.get("checkCode").getAsString()));
                break;
            case "RegisterBrokerToController":
                result = manager.registerBroker(new RegisterBrokerToControllerRequestHeader(cluster, broker,
                    r.get("brokerId").getAsLong(), r.get("addr").getAsString()), alive);
                break;
            case "ElectMaster":
                result = manager.electMaster(electRequest(r, cluster, broker), policy);
                break;
            case "AlterSyncStateSet": {
                AlterSyncStateSetRequestHeader header = new AlterSyncStateSetRequestHeader(broker,
                    r.get("masterId").getAsLong(), r.get("masterEpoch").getAsInt());
                SyncStateSet proposed = new SyncStateSet(longs(r.getAsJsonArray("newSyncStateSet")),
                    r.get("syncStateSetEpoch").getAsInt());
                result = manager.alterSyncStateSet(header, proposed, alive);
                break;
            }
            case "GetReplicaInfo":
                result = manager.getReplicaInfo(new GetReplicaInfoRequestHeader(broker));
                break;
            case "GetSyncStateData":
                result = manager.getSyncStateData(List.of(broker), alive);
                break;
            case "CleanBrokerData": {
                StringBuilder ids = new StringBuilder();
                for (JsonElement id : r.getAsJsonArray("brokerIds")) {
                    ids.append(ids.length() == 0 ? "" : ";").append(id.getAsLong());
                }
                result = manager.cleanBrokerData(new CleanControllerBrokerDataRequestHeader(cluster, broker,
                    ids.toString(), r.get("cleanLiving").getAsBoolean()), alive);
                break;
            }
            default:
                throw new IllegalStateException("REQUESTS names " + tag + " but propose does not");
        }
        return result;
    }

    private static ElectMasterRequestHeader electRequest(JsonObject r, String cluster, String broker) {
        String trigger = r.get("trigger").getAsString();
        long id = r.get("brokerId").getAsLong();
        switch (trigger) {
            case "broker":
                return ElectMasterRequestHeader.ofBrokerTrigger(cluster, broker, id);
            case "controller":
                return ElectMasterRequestHeader.ofControllerTrigger(broker);
            case "admin":
                return ElectMasterRequestHeader.ofAdminTrigger(cluster, broker, id);
            default:
                throw new IllegalArgumentException("unknown trigger " + trigger);
        }
    }

    private static JsonElement body(String tag, byte[] body) {
        if (body == null) {
            return new JsonObject();
        }
        switch (tag) {
            case "ElectMaster":
                return Harness.tree(RemotingSerializable.decode(body, ElectMasterResponseBody.class));
            case "GetSyncStateData":
                return Harness.tree(RemotingSerializable.decode(body, BrokerReplicasInfo.class));
            default:
                return Harness.tree(RemotingSerializable.decode(body, SyncStateSet.class));
        }
    }

    private JsonObject heartbeat(JsonObject r) {
        String cluster = r.get("cluster").getAsString();
        String broker = r.get("broker").getAsString();
        long id = r.get("brokerId").getAsLong();
        Channel channel = new EmbeddedChannel();
        heartbeats.onBrokerHeartbeat(cluster, broker, r.get("addr").getAsString(), id, TIMEOUT_MILLIS, channel,
            r.get("epoch").getAsInt(), r.get("maxOffset").getAsLong(), null, r.get("priority").getAsInt());
        JsonObject answer = new JsonObject();
        answer.add("state", state(cluster, broker));
        return answer;
    }

    private JsonObject expire(JsonObject r) {
        String cluster = r.get("cluster").getAsString();
        String broker = r.get("broker").getAsString();
        BrokerLiveInfo info = heartbeats.getBrokerLiveInfo(cluster, broker, r.get("brokerId").getAsLong());
        JsonObject answer = new JsonObject();
        answer.addProperty("existed", info != null);
        if (info != null) {
            heartbeats.onBrokerChannelClose(info.getChannel());
        }
        answer.add("state", state(cluster, broker));
        return answer;
    }

    private JsonObject scan() {
        JsonObject answer = new JsonObject();
        JsonArray sets = new JsonArray();
        manager.scanNeedReelectBrokerSets(alive).forEach(sets::add);
        answer.add("brokerNames", sets);
        return answer;
    }

    /** One broker set as the controller holds it: its replica table, sync state and liveness entries. */
    @SuppressWarnings("unchecked")
    JsonObject state(String cluster, String broker) {
        Map<String, BrokerReplicaInfo> replicaTable = (Map<String, BrokerReplicaInfo>) Harness.field(manager, "replicaInfoTable");
        Map<String, SyncStateInfo> syncTable = (Map<String, SyncStateInfo>) Harness.field(manager, "syncStateSetInfoTable");
        BrokerReplicaInfo replicas = replicaTable.get(broker);
        SyncStateInfo sync = syncTable.get(broker);
        JsonObject s = new JsonObject();
        s.addProperty("known", replicas != null && sync != null);
        s.addProperty("replicaInfo", replicas != null);
        s.addProperty("syncStateInfo", sync != null);
        JsonObject table = new JsonObject();
        if (replicas != null) {
            for (Map.Entry<Long, String> e : new TreeMap<>(replicas.getBrokerIdTable()).entrySet()) {
                JsonObject entry = new JsonObject();
                entry.addProperty("addr", e.getValue());
                entry.addProperty("checkCode", replicas.getBrokerRegisterCheckCode(e.getKey()));
                table.add(String.valueOf(e.getKey()), entry);
            }
            s.addProperty("clusterName", replicas.getClusterName());
        }
        s.add("replicas", table);
        s.addProperty("nextBrokerId", replicas == null ? 1L : replicas.getNextAssignBrokerId());
        Long master = sync == null ? null : sync.getMasterBrokerId();
        s.addProperty("masterId", master == null ? -1L : master);
        s.addProperty("masterEpoch", sync == null ? 0 : sync.getMasterEpoch());
        s.add("syncStateSet", Harness.tree(sync == null ? Set.of() : new TreeSet<>(sync.getSyncStateSet())));
        s.addProperty("syncStateSetEpoch", sync == null ? 0 : sync.getSyncStateSetEpoch());
        s.add("alive", alive(cluster, broker));
        return s;
    }

    /** The manager's live entries of one set, read from its table: brokerId -> (epoch, maxOffset, priority). */
    @SuppressWarnings("unchecked")
    private JsonObject alive(String cluster, String broker) {
        Map<BrokerIdentityInfo, BrokerLiveInfo> table = (Map<BrokerIdentityInfo, BrokerLiveInfo>) Harness.field(heartbeats, "brokerLiveTable");
        TreeMap<Long, JsonObject> entries = new TreeMap<>();
        for (Map.Entry<BrokerIdentityInfo, BrokerLiveInfo> e : table.entrySet()) {
            BrokerIdentityInfo who = e.getKey();
            if (who.getClusterName().equals(cluster) && who.getBrokerName().equals(broker)
                && heartbeats.isBrokerActive(cluster, broker, who.getBrokerId())) {
                BrokerLiveInfo info = e.getValue();
                JsonObject entry = new JsonObject();
                entry.addProperty("epoch", info.getEpoch());
                entry.addProperty("maxOffset", info.getMaxOffset());
                entry.addProperty("priority", info.getElectionPriority());
                entries.put(who.getBrokerId(), entry);
            }
        }
        JsonObject out = new JsonObject();
        entries.forEach((id, entry) -> out.add(String.valueOf(id), entry));
        return out;
    }

    private static Set<Long> longs(JsonArray array) {
        Set<Long> out = new HashSet<>();
        for (JsonElement e : array) {
            out.add(e.getAsLong());
        }
        return out;
    }
}
