package autoswitch.cluster;

/** The little JSON the processes write: strings and error descriptions. */
final class Json {
    private Json() {
    }

    static String str(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"').toString();
    }

    /** The error and its causes, one line: "Class: message <- Class: message". */
    static String error(Throwable error) {
        StringBuilder out = new StringBuilder();
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            String message = String.valueOf(e.getMessage());
            int newline = message.indexOf('\n');
            out.append(e.getClass().getSimpleName()).append(": ")
                .append(newline >= 0 ? message.substring(0, newline) : message);
            if (out.length() > 600) {
                break;
            }
        }
        return out.toString();
    }
}
