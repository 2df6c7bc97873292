package autoswitch.harness;

import com.google.gson.JsonObject;

/** One part of RocketMQ the harness drives: the requests whose op starts with its prefix. */
interface Driver {
    JsonObject handle(String op, JsonObject request) throws Exception;

    void close() throws Exception;
}
