package autoswitch.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A TCP forwarder between a slave's HA client and its master's HA port: it accepts the slave's connections on a port of
 * its own and opens one to the master for each (a slave whose master is gone sees its connection closed at once).
 * Link and Stepper decide what passes.
 */
abstract class Forwarder implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress master;
    protected volatile boolean closed;

    Forwarder(String masterAddress, String name) throws IOException {
        String[] hostPort = masterAddress.split(":");
        this.master = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "autoswitch-" + name + "-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** A new connection from the slave and the one opened for it to the master. */
    abstract void connected(Socket slave, Socket toMaster) throws IOException;

    /** Close every connection this forwarder holds. */
    abstract void closeConnections();

    private void accept() {
        while (!closed) {
            try {
                Socket slave = server.accept();
                Socket toMaster;
                try {
                    toMaster = new Socket(master.getAddress(), master.getPort());
                } catch (IOException e) {
                    quietly(slave);
                    continue;
                }
                connected(slave, toMaster);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("forwarder " + address() + ": " + e);
                }
            }
        }
    }

    static void quietly(Socket s) {
        if (s == null) {
            return;
        }
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
        closeConnections();
    }
}
