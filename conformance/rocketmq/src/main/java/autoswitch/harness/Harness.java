package autoswitch.harness;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * The line protocol of the `rocketmq` engine: one JSON request per line on stdin, one JSON answer per line on stdout,
 * in order. Every answer has "ok"; a failed request answers {"ok": false, "error": ..., "stack": ...} and the JVM
 * reads on. stdout carries nothing else: whatever RocketMQ prints goes to stderr (System.out is redirected before
 * any of its classes load).
 *
 * <p>Requests are {"op": "<driver>.<operation>", ...}; the drivers are ControllerDriver (ReplicasInfoManager,
 * DefaultElectPolicy, DefaultBrokerHeartbeatManager), EpochDriver (EpochFileCache on a real file) and
 * DataDriver (DefaultMessageStores replicating over AutoSwitchHAService), plus
 * "hello" (the RocketMQ release on the classpath) and "exit".
 */
public final class Harness {
    static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping().create();
    private static final Map<Integer, String> CODE_NAMES = codeNames();

    private Harness() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        watchParent();
        Map<String, Driver> drivers = drivers();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonObject answer;
                String op = "";
                try {
                    JsonObject request = JsonParser.parseString(line).getAsJsonObject();
                    op = request.get("op").getAsString();
                    if (op.equals("exit")) {
                        break;
                    }
                    answer = dispatch(op, request, drivers);
                    answer.addProperty("ok", true);
                } catch (Throwable e) {
                    answer = new JsonObject();
                    answer.addProperty("ok", false);
                    answer.addProperty("error", op + ": " + e);
                    StringWriter stack = new StringWriter();
                    e.printStackTrace(new PrintWriter(stack));
                    answer.addProperty("stack", stack.toString());
                }
                protocol.println(GSON.toJson(answer));
                protocol.flush();
            }
        } finally {
            for (Driver d : drivers.values()) {
                d.close();
            }
        }
        System.exit(0);  // the heartbeat manager's executor threads are not daemons
    }

    /** Halt when the process that started the harness is gone, whatever the signal that ended it. */
    private static void watchParent() {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        Thread watcher = new Thread(() -> {
            while (parent != null && parent.isAlive()) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(1);
        }, "autoswitch-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * The drivers this build holds, by the prefix of their ops. A build against a release whose API a driver does not
     * compile against leaves it out (pom.xml: harness.excludes): 5.0.0 and 5.1.0 have no controller driver.
     */
    private static Map<String, Driver> drivers() throws ReflectiveOperationException {
        Map<String, Driver> drivers = new LinkedHashMap<>();
        for (String[] d : new String[][] {{"controller", "ControllerDriver"}, {"epoch", "EpochDriver"}, {"data", "DataDriver"}}) {
            try {
                drivers.put(d[0], (Driver) Class.forName("autoswitch.harness." + d[1]).getDeclaredConstructor().newInstance());
            } catch (ClassNotFoundException e) {
                // not in this build
            }
        }
        return drivers;
    }

    private static JsonObject dispatch(String op, JsonObject request, Map<String, Driver> drivers) throws Exception {
        if (op.equals("hello")) {
            JsonObject answer = new JsonObject();
            answer.addProperty("version", MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
            answer.add("drivers", GSON.toJsonTree(drivers.keySet()));
            return answer;
        }
        int dot = op.indexOf('.');
        Driver driver = dot < 0 ? null : drivers.get(op.substring(0, dot));
        if (driver == null) {
            throw new IllegalArgumentException("unknown op " + op + " (this build's drivers: " + drivers.keySet() + ")");
        }
        return driver.handle(op.substring(dot + 1), request);
    }

    /** ResponseCode's name of a code number (the controller's names first: some numbers have two names). */
    static String codeName(int code) {
        return CODE_NAMES.getOrDefault(code, "UNKNOWN_" + code);
    }

    private static Map<Integer, String> codeNames() {
        Map<Integer, String> names = new HashMap<>();
        for (Class<?> c = ResponseCode.class; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == int.class && Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers())) {
                    try {
                        int value = f.getInt(null);
                        String old = names.get(value);
                        if (old == null || (!old.startsWith("CONTROLLER_") && f.getName().startsWith("CONTROLLER_"))) {
                            names.put(value, f.getName());
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return names;
    }

    /** A private field of a RocketMQ object, read as its classes hold it (the harness reads state, never sets it). */
    static Object field(Object owner, String name) {
        for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(owner.getClass().getName() + " has no field " + name);
    }

    static JsonElement tree(Object value) {
        return GSON.toJsonTree(value);
    }

    /** Delete a folder the harness made, and everything in it. */
    static void deleteTree(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }
}
