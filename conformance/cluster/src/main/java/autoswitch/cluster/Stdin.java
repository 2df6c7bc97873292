package autoswitch.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** The process's stdin, held by the process that started it: when it closes, that process is gone. */
final class Stdin {
    private Stdin() {
    }

    /** Halts the JVM (no shutdown hooks: as a kill would) when stdin closes. */
    static void exitWhenClosed() {
        onLines(line -> { }, true);
    }

    /** Each line to {@code lines} on a daemon thread; at end of input, halts the JVM if {@code halt}, else passes null. */
    static void onLines(Consumer<String> lines, boolean halt) {
        Thread watcher = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.accept(line);
                }
            } catch (IOException e) {
                // the same as a closed stdin
            }
            if (halt) {
                Runtime.getRuntime().halt(0);
            }
            lines.accept(null);
        }, "autoswitch-stdin");
        watcher.setDaemon(true);
        watcher.start();
    }
}
