package autoswitch.harness;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.store.ha.autoswitch.EpochFileCache;

/**
 * One EpochFileCache on a real checkpoint file in a folder of its own. "reload" is what a restarted broker does: a
 * new EpochFileCache on the same path, initCacheFromFile. The view is the cache's entries in memory (getAllEntries,
 * copies, with their endOffsets) and the file as it is on disk: its lines after CheckpointFile's two header lines
 * (the entry count and the CRC32 of the entry lines), which are checked here.
 */
final class EpochDriver implements Driver {
    private Path folder;
    private EpochFileCache cache;

    @Override
    public JsonObject handle(String op, JsonObject r) throws IOException {
        switch (op) {
            case "reset":
                close();
                folder = Files.createTempDirectory("autoswitch-epoch-");
                cache = new EpochFileCache(file().toString());
                return view(new JsonObject());
            case "op":
                return view(run(r.get("tag").getAsString(), r));
            case "handshake":
                return handshake(r);
            default:
                throw new IllegalArgumentException("unknown epoch operation " + op);
        }
    }

    private Path file() {
        return folder.resolve("epochFileCheckpoint");
    }

    private JsonObject run(String tag, JsonObject a) {
        JsonObject answer = new JsonObject();
        switch (tag) {
            case "appendEntry":
                answer.addProperty("returns", cache.appendEntry(new EpochEntry(a.get("epoch").getAsInt(), a.get("startOffset").getAsLong())));
                break;
            case "truncateSuffixByEpoch":
                cache.truncateSuffixByEpoch(a.get("epoch").getAsInt());
                break;
            case "truncateSuffixByOffset":
                cache.truncateSuffixByOffset(a.get("offset").getAsLong());
                break;
            case "truncatePrefixByOffset":
                cache.truncatePrefixByOffset(a.get("offset").getAsLong());
                break;
            case "setLastEpochEntryEndOffset":
                cache.setLastEpochEntryEndOffset(a.get("offset").getAsLong());
                break;
            case "findConsistentPoint":
                answer.addProperty("returns", cache.findConsistentPoint(other(a.getAsJsonArray("other"))));
                break;
            case "findEpochEntryByOffset":
                found(answer, cache.findEpochEntryByOffset(a.get("offset").getAsLong()));
                break;
            case "nextEntry":
                found(answer, cache.nextEntry(a.get("epoch").getAsInt()));
                break;
            case "getEntry":
                found(answer, cache.getEntry(a.get("epoch").getAsInt()));
                break;
            case "firstEntry":
                found(answer, cache.firstEntry());
                break;
            case "lastEntry":
                found(answer, cache.lastEntry());
                break;
            case "lastEpoch":
                answer.addProperty("returns", cache.lastEpoch());
                break;
            case "reload":
                cache = new EpochFileCache(file().toString());
                answer.addProperty("returns", cache.initCacheFromFile());
                break;
            default:
                throw new IllegalArgumentException("unknown EpochFileCache operation " + tag);
        }
        return answer;
    }

    /**
     * A slave's truncation point as AutoSwitchHAClient.doTruncate computes it: an empty local cache skips truncation
     * (the slave reports its maxPhyOffset); otherwise both caches are built with initCacheFromEntries, their last
     * entry ending at the side's max offset, and the local one's findConsistentPoint against the master's gives the
     * point (-1: none). The slave's epoch file (a real checkpoint) is then cut by truncateSuffixByOffset(point).
     */
    private JsonObject handshake(JsonObject r) throws IOException {
        handle("reset", r);
        List<EpochEntry> local = entries(r.getAsJsonArray("slaveEpochs"));
        long slaveLeo = r.get("slaveLeo").getAsLong();
        cache.initCacheFromEntries(local);
        long point;
        if (cache.getEntrySize() == 0) {
            point = slaveLeo;
        } else {
            EpochFileCache master = new EpochFileCache();
            master.initCacheFromEntries(entries(r.getAsJsonArray("masterEpochs")));
            master.setLastEpochEntryEndOffset(r.get("masterLeo").getAsLong());
            EpochFileCache mine = new EpochFileCache();
            mine.initCacheFromEntries(cache.getAllEntries());
            mine.setLastEpochEntryEndOffset(slaveLeo);
            point = mine.findConsistentPoint(master);
            if (point >= 0) {
                cache.truncateSuffixByOffset(point);
            }
        }
        JsonObject answer = new JsonObject();
        answer.addProperty("point", point);
        return view(answer);
    }

    private static List<EpochEntry> entries(JsonArray pairs) {
        List<EpochEntry> out = new ArrayList<>();
        for (JsonElement pair : pairs) {
            JsonArray p = pair.getAsJsonArray();
            out.add(new EpochEntry(p.get(0).getAsInt(), p.get(1).getAsLong()));
        }
        return out;
    }

    /** Another cache (in memory, no file) holding exactly the given entries, endOffsets included. */
    private static EpochFileCache other(JsonArray entries) {
        EpochFileCache other = new EpochFileCache();
        long lastEnd = -1;
        for (JsonElement e : entries) {
            JsonObject entry = e.getAsJsonObject();
            other.appendEntry(new EpochEntry(entry.get("epoch").getAsInt(), entry.get("startOffset").getAsLong()));
            lastEnd = entry.get("endOffset").getAsLong();
        }
        if (lastEnd >= 0) {
            other.setLastEpochEntryEndOffset(lastEnd);
        }
        return other;
    }

    private static void found(JsonObject answer, EpochEntry entry) {
        answer.addProperty("found", entry != null);
        if (entry != null) {
            answer.add("entry", entry(entry));
        }
    }

    private static JsonObject entry(EpochEntry e) {
        JsonObject out = new JsonObject();
        out.addProperty("epoch", e.getEpoch());
        out.addProperty("startOffset", e.getStartOffset());
        out.addProperty("endOffset", e.getEndOffset());
        return out;
    }

    private JsonObject view(JsonObject answer) throws IOException {
        JsonArray entries = new JsonArray();
        for (EpochEntry e : cache.getAllEntries()) {
            entries.add(entry(e));
        }
        answer.add("entries", entries);
        JsonArray lines = new JsonArray();
        Path f = file();
        answer.addProperty("fileExists", Files.exists(f));
        if (Files.exists(f)) {
            List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
            if (all.size() < 2 || Integer.parseInt(all.get(0)) != all.size() - 2) {
                throw new IOException("the checkpoint file does not hold its own entry count: " + all);
            }
            all.subList(2, all.size()).forEach(lines::add);
        }
        answer.add("file", lines);
        return answer;
    }

    @Override
    public void close() throws IOException {
        if (folder != null) {
            Harness.deleteTree(folder);
            folder = null;
        }
    }
}
