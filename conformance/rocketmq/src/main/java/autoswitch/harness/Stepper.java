package autoswitch.harness;

import com.google.gson.JsonObject;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A TCP forwarder between a slave's HA client and its master's HA port that holds every frame of the AutoSwitch HA
 * protocol until a step lets it through, so that the model's data-path steps can be taken one at a time on the real
 * connection: Handshake (the slave's handshake, the master's answer, and the slave's first report after it truncated),
 * Transfer (the master's frames up to and including the next one that carries a message: the master sends one message
 * per frame when haTransferBatchSize is a message's size) and Ack (the slave's newest report of a given offset; older
 * reports are dropped, as the model's Ack reports only the slave's current offset). The frames are parsed as
 * AutoSwitchHAClient and AutoSwitchHAConnection write them; nothing is rewritten. A new connection from the slave (it
 * reconnects after a broken one) replaces the old one and what was held of it.
 */
final class Stepper extends Forwarder {
    private static final int HANDSHAKE = 1;  // HAConnectionState.HANDSHAKE.ordinal()
    private static final int TRANSFER = 2;  // HAConnectionState.TRANSFER.ordinal()
    // AutoSwitchHAConnection.HANDSHAKE_HEADER_SIZE and TRANSFER_HEADER_SIZE, AutoSwitchHAClient's two headers
    private static final int MASTER_HANDSHAKE_HEADER = 4 + 4 + 8 + 4;
    private static final int MASTER_TRANSFER_HEADER = MASTER_HANDSHAKE_HEADER + 8 + 8;
    private static final int SLAVE_HANDSHAKE_HEADER = 4 + 4 + 8;
    private static final int SLAVE_TRANSFER_HEADER = 4 + 8;

    /** One frame: its state, the offset it carries (a transfer's or a report's), its body size, and its bytes. */
    private static final class Frame {
        final int state;
        final long offset;
        final int bodySize;
        final long confirmOffset;
        final byte[] bytes;

        Frame(int state, long offset, int bodySize, long confirmOffset, byte[] bytes) {
            this.state = state;
            this.offset = offset;
            this.bodySize = bodySize;
            this.confirmOffset = confirmOffset;
            this.bytes = bytes;
        }
    }

    private final Deque<Frame> down = new ArrayDeque<>();  // the master's frames, held
    private final Deque<Frame> up = new ArrayDeque<>();  // the slave's frames, held
    private Socket slave;
    private Socket toMaster;
    private int generation;  // the connection the queues hold frames of
    private int connections;

    Stepper(String masterAddress) throws IOException {
        super(masterAddress, "stepper");
    }

    /** Take one step (handshake, transfer or ack with the offset in bytes), waiting for its frames at most timeoutMs. */
    synchronized JsonObject step(String kind, long offset, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        JsonObject answer = new JsonObject();
        boolean taken;
        try {
            switch (kind) {
                case "handshake":
                    taken = handshake(deadline, answer);
                    break;
                case "transfer":
                    taken = transfer(deadline, answer);
                    break;
                case "ack":
                    taken = ack(offset, deadline, answer);
                    break;
                default:
                    throw new IllegalArgumentException("unknown step " + kind);
            }
        } catch (IOException e) {  // the connection broke under the step (a store closed, the slave reconnecting)
            taken = false;
            answer.addProperty("missing", "the connection, which broke: " + e.getMessage());
        }
        answer.addProperty("taken", taken);
        answer.addProperty("connections", connections);
        answer.addProperty("heldDown", down.size());
        answer.addProperty("heldUp", up.size());
        return answer;
    }

    private boolean handshake(long deadline, JsonObject answer) throws IOException, InterruptedException {
        Frame request = await(up, HANDSHAKE, deadline, true);
        if (request == null) {
            answer.addProperty("missing", "the slave's handshake");
            return false;
        }
        forward(up, request, toMaster);
        Frame reply = await(down, HANDSHAKE, deadline);
        if (reply == null) {
            answer.addProperty("missing", "the master's handshake answer");
            return false;
        }
        int g = generation;
        forward(down, reply, slave);
        Frame report = await(up, TRANSFER, deadline);
        if (report == null) {
            if (generation != g) {  // doTruncate found no consistent point: the slave closed the connection
                answer.addProperty("refused", true);
            }
            answer.addProperty("missing", "the slave's first report");
            return false;
        }
        forward(up, report, toMaster);
        answer.addProperty("offset", report.offset);
        return true;
    }

    private boolean transfer(long deadline, JsonObject answer) throws IOException, InterruptedException {
        while (true) {
            Frame data = null;
            for (Frame f : down) {
                if (f.state == TRANSFER && f.bodySize > 0) {
                    data = f;
                    break;
                }
            }
            if (data != null) {
                while (true) {
                    Frame f = down.peekFirst();
                    forward(down, f, slave);
                    if (f == data) {
                        break;
                    }
                }
                answer.addProperty("offset", data.offset);
                answer.addProperty("bodySize", data.bodySize);
                answer.addProperty("confirmOffset", data.confirmOffset);
                return true;
            }
            if (!waitUntil(deadline)) {
                answer.addProperty("missing", "a transfer of a message");
                return false;
            }
        }
    }

    private boolean ack(long offset, long deadline, JsonObject answer) throws IOException, InterruptedException {
        while (true) {
            Frame report = null;
            for (Frame f : up) {
                if (f.state == TRANSFER && f.offset == offset) {
                    report = f;
                }
            }
            if (report != null) {
                while (up.peekFirst() != report) {
                    up.removeFirst();  // an older report: the model's Ack reports the slave's current offset only
                }
                forward(up, report, toMaster);
                answer.addProperty("offset", offset);
                return true;
            }
            if (!waitUntil(deadline)) {
                answer.addProperty("missing", "a report of offset " + offset);
                return false;
            }
        }
    }

    /**
     * The first frame of the queue if it has the state, waiting for one until the deadline; null if none came, or if
     * the connection broke meanwhile. Of the slave's frames, a report before a handshake is the connection before's, and
     * a handshake before a report is the client's retry of one already passed (it retries every 5 s unanswered, which
     * only the holding made it wait for): both are dropped.
     */
    private Frame await(Deque<Frame> queue, int state, long deadline) throws InterruptedException {
        return await(queue, state, deadline, false);
    }

    /** As await, and with acrossConnections also the frames of a connection made while it waits. */
    private Frame await(Deque<Frame> queue, int state, long deadline, boolean acrossConnections) throws InterruptedException {
        int g = generation;
        while (acrossConnections || generation == g) {
            Frame f = queue.peekFirst();
            if (f != null && f.state == state) {
                return f;
            }
            if (f != null && queue == up) {
                queue.removeFirst();
                continue;
            }
            if (!waitUntil(deadline)) {
                return null;
            }
        }
        return null;
    }

    private boolean waitUntil(long deadline) throws InterruptedException {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0 || closed) {
            return false;
        }
        wait(Math.min(left, 20));
        return true;
    }

    private void forward(Deque<Frame> queue, Frame f, Socket to) throws IOException {
        queue.remove(f);
        if (to == null) {
            throw new IOException("no connection");
        }
        OutputStream out = to.getOutputStream();
        out.write(f.bytes);
        out.flush();
    }

    @Override
    void connected(Socket s, Socket m) {
        int g;
        synchronized (this) {
            quietly(slave);
            quietly(toMaster);
            slave = s;
            toMaster = m;
            g = ++generation;
            connections++;
            down.clear();
            up.clear();
            notifyAll();
        }
        read(s, true, g);
        read(m, false, g);
    }

    /** Parse the frames one side sends and hold them. */
    private void read(Socket from, boolean fromSlave, int g) {
        Thread t = new Thread(() -> {
            try {
                DataInputStream in = new DataInputStream(from.getInputStream());
                while (true) {
                    Frame f = fromSlave ? slaveFrame(in) : masterFrame(in);
                    synchronized (this) {
                        if (g != generation) {
                            return;
                        }
                        (fromSlave ? up : down).addLast(f);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the connection broke: the peer's side is closed too, as a broken connection would be
                synchronized (this) {
                    if (g == generation) {  // what was held of it is gone with it; a step waits for a new connection
                        quietly(slave);
                        quietly(toMaster);
                        slave = null;
                        toMaster = null;
                        generation++;
                        down.clear();
                        up.clear();
                        notifyAll();
                    }
                }
            }
        }, "autoswitch-stepper-read");
        t.setDaemon(true);
        t.start();
    }

    private static Frame slaveFrame(DataInputStream in) throws IOException {
        int state = in.readInt();
        byte[] rest = new byte[(state == HANDSHAKE ? SLAVE_HANDSHAKE_HEADER : SLAVE_TRANSFER_HEADER) - 4];
        in.readFully(rest);
        ByteBuffer b = ByteBuffer.allocate(4 + rest.length).putInt(state).put(rest);
        long offset = state == TRANSFER ? b.getLong(4) : -1;
        return new Frame(state, offset, 0, -1, b.array());
    }

    private static Frame masterFrame(DataInputStream in) throws IOException {
        int state = in.readInt();
        int bodySize = in.readInt();
        byte[] rest = new byte[(state == TRANSFER ? MASTER_TRANSFER_HEADER : MASTER_HANDSHAKE_HEADER) - 8 + bodySize];
        in.readFully(rest);
        ByteBuffer b = ByteBuffer.allocate(8 + rest.length).putInt(state).putInt(bodySize).put(rest);
        long confirm = state == TRANSFER ? b.getLong(MASTER_TRANSFER_HEADER - 8) : -1;
        return new Frame(state, b.getLong(8), bodySize, confirm, b.array());
    }

    @Override
    synchronized void closeConnections() {
        quietly(slave);
        quietly(toMaster);
        notifyAll();
    }
}
