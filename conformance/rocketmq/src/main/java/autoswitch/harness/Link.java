package autoswitch.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
final class Link implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress master;
    private final List<Socket> sockets = new ArrayList<>();
    private long allowance = Long.MAX_VALUE;  // the master's bytes that may still pass; MAX: not held
    private volatile boolean closed;

    Link(String masterAddress, long pass) throws IOException {
        this.allowance = pass;
        String[] hostPort = masterAddress.split(":");
        this.master = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "autoswitch-link-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
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

    private void accept() {
        while (!closed) {
            try {
                Socket slave = server.accept();
                Socket toMaster = new Socket(master.getAddress(), master.getPort());
                synchronized (sockets) {
                    sockets.add(slave);
                    sockets.add(toMaster);
                }
                pump(slave, toMaster, false);
                pump(toMaster, slave, true);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("link " + address() + ": " + e);
                }
            }
        }
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

    private static void quietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        synchronized (sockets) {
            sockets.forEach(Link::quietly);
            sockets.clear();
        }
    }
}
