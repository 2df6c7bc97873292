package autoswitch.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP forwarder between a slave's HA client and its master's HA port. Holding it stops the master's bytes (the
 * handshake answer, transfers, heartbeats) from reaching the slave while the slave's reports still reach the master:
 * the connection stays up, and the slave keeps acknowledging the offset it had. Nothing is dropped; releasing it
 * delivers what was held. A link may also let a number of the master's bytes pass and hold the rest (the handshake's
 * answer, and not the first transfer after it).
 */
final class Link extends Forwarder {
    private final List<Socket> sockets = new ArrayList<>();
    private long allowance;  // the master's bytes that may still pass; MAX: not held

    Link(String masterAddress, long pass) throws IOException {
        super(masterAddress, "link");
        this.allowance = pass;
    }

    synchronized void hold(boolean hold) {
        allowance = hold ? 0 : Long.MAX_VALUE;
        notifyAll();
    }

    /** Wait until some of the master's bytes may pass, and take up to n of them. */
    private synchronized int take(int n) throws InterruptedException {
        while (allowance <= 0 && !closed) {
            wait(50);
        }
        int k = (int) Math.min(n, allowance);
        if (allowance != Long.MAX_VALUE) {
            allowance -= k;
        }
        return k;
    }

    @Override
    void connected(Socket slave, Socket toMaster) {
        synchronized (sockets) {
            sockets.add(slave);
            sockets.add(toMaster);
        }
        pump(slave, toMaster, false);
        pump(toMaster, slave, true);
    }

    /** Copy from one socket to the other; bytes from the master wait while the link is held. */
    private void pump(Socket from, Socket to, boolean fromMaster) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    for (int off = 0, k; off < n; off += k) {
                        k = fromMaster ? take(n - off) : n - off;
                        if (closed) {
                            return;
                        }
                        out.write(buffer, off, k);
                    }
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // one side closed: close the other, as a broken connection would
            } finally {
                quietly(from);
                quietly(to);
            }
        }, "autoswitch-link-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    void closeConnections() {
        synchronized (sockets) {
            sockets.forEach(Forwarder::quietly);
            sockets.clear();
        }
    }
}
