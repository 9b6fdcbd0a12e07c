package io.echomq.cli;

import io.echomq.queue.AttemptError;
import io.echomq.queue.JobInfo;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue inspect <queue> <id>... [--format text|json]}. */
@Command(name = "inspect",
        description = {"Prints the fields of one job's hash as name=value, one per line, exit code 0; "
            + "exit code 1 (and nothing on stdout) when there is no such job. A completed job keeps no hash "
            + "unless the queue's retention asks (emq queue retention).",
            "Several ids print one job after another, each starting with a line id=<id> and followed by an empty "
                + "line, in one connection; a missing one is named on stderr, the others are printed, and the exit "
                + "code is 1. --format json prints one JSON object per job and line: id, the fields, and errors "
                + "(each kept attempt's error: attempt, at, error) as an array.",
            "payload and progress print as they are when they are valid UTF-8 without line breaks or other "
                + "control characters (tabs are fine), else as base64:<base64 of the bytes>. In the other "
                + "fields (last_error holds a whole stderr or stack trace) a backslash prints as \\\\, "
                + "a line break as \\n, a carriage return as \\r and other control characters as \\u00XX."})
final class QueueInspectCommand extends QueueSubcommand {
    /** Why a job's hash may be gone: a completed job's is deleted at completion unless retention keeps it. */
    static final String NOT_KEPT = "removed, or completed: a completed job keeps no hash unless the queue's "
            + "retention asks, see emq queue retention";
    /** Payload and progress values are printed as text only when they are UTF-8 without these. */
    private static final String PRINTABLE_CONTROLS = "\t";
    /** The job hash fields in the order inspect prints them; any others follow, sorted. */
    private static final List<String> FIELD_ORDER = List.of("state", "attempts", "spent", "max_attempts", "priority",
            "score", "backoff_ms", "backoff_max_ms", "timeout_ms", "created_at", "claimed_at", "finished_at", "idem",
            "dead_reason", "last_error", "progress", "payload");

    @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
    String id;
    @Parameters(index = "2..*", paramLabel = "<id>", description = "More job ids.")
    List<String> more = new ArrayList<>();
    @Option(names = "--format", paramLabel = "<format>", defaultValue = "text",
            description = "text (name=value lines) or json (one object per job). Default: ${DEFAULT-VALUE}.")
    String format;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        boolean json = switch (format) {
            case "text" -> false;
            case "json" -> true;
            default -> throw new ParameterException(spec.commandLine(),
                    "Invalid value for option '--format': '" + format + "' is not text or json");
        };
        List<String> ids = new ArrayList<>();
        ids.add(id);
        ids.addAll(more);
        for (String each : ids) {
            checkJobId(each);
        }
        List<Optional<JobInfo>> infos = new ArrayList<>();
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            for (String each : ids) {
                infos.add(q.inspect(each));
            }
        }
        int code = ExitCodes.OK;
        for (int i = 0; i < ids.size(); i++) {
            Optional<JobInfo> info = infos.get(i);
            if (info.isEmpty()) {
                err().println(spec.qualifiedName() + ": no job " + ids.get(i) + " in queue " + queue + " (" + NOT_KEPT
                        + ")");
                code = ExitCodes.NO;
                continue;
            }
            // A pending job's hash may omit state and attempts (protocol: "when absent"); show
            // their values all the same, so that every job answers what state it is in.
            Map<String, byte[]> fields = new java.util.LinkedHashMap<>(info.get().fields());
            fields.putIfAbsent("state", info.get().state().getBytes(StandardCharsets.UTF_8));
            fields.putIfAbsent("attempts", Long.toString(info.get().attempts()).getBytes(StandardCharsets.UTF_8));
            if (json) {
                out().println(json(ids.get(i), fields, info.get().attemptErrors()));
            } else {
                if (ids.size() > 1) {
                    out().println("id=" + oneLine(ids.get(i)));
                }
                for (String line : lines(fields)) {
                    out().println(line);
                }
                if (ids.size() > 1) {
                    out().println();
                }
            }
        }
        return code;
    }

    /** @return one job as a JSON object: id, its fields as text (payload and progress as text prints them), errors */
    static String json(String id, Map<String, byte[]> fields, List<AttemptError> errors) {
        StringBuilder b = new StringBuilder("{\"id\":").append(Rows.json(id));
        Map<String, byte[]> rest = new TreeMap<>(fields);
        rest.remove("errors");
        List<String> names = new ArrayList<>();
        for (String name : FIELD_ORDER) {
            if (rest.containsKey(name)) {
                names.add(name);
            }
        }
        for (String name : rest.keySet()) {
            if (!FIELD_ORDER.contains(name)) {
                names.add(name);
            }
        }
        for (String name : names) {
            byte[] v = rest.get(name);
            String text = name.equals("payload") || name.equals("progress") ? value(name, v)
                    : new String(v, StandardCharsets.UTF_8);
            b.append(',').append(Rows.json(name)).append(':').append(Rows.json(text));
        }
        b.append(",\"errors\":[");
        for (int i = 0; i < errors.size(); i++) {
            AttemptError e = errors.get(i);
            b.append(i == 0 ? "" : ",").append("{\"attempt\":").append(e.attempt()).append(",\"at\":")
                    .append(Rows.json(e.at().toString())).append(",\"error\":").append(Rows.json(e.error())).append('}');
        }
        return b.append("]}").toString();
    }

    /** @return {@code name=value} lines, known fields first in {@link #FIELD_ORDER}, the rest sorted */
    static List<String> lines(Map<String, byte[]> fields) {
        Map<String, byte[]> rest = new TreeMap<>(fields);
        List<String> out = new ArrayList<>(fields.size());
        for (String name : FIELD_ORDER) {
            byte[] v = rest.remove(name);
            if (v != null) {
                out.add(name + "=" + value(name, v));
            }
        }
        rest.forEach((name, v) -> out.add(oneLine(name) + "=" + value(name, v)));
        return out;
    }

    private static String value(String name, byte[] v) {
        if (name.equals("payload") || name.equals("progress")) {
            String text = strictUtf8(v);
            return text != null && isPlain(text) ? text : "base64:" + Base64.getEncoder().encodeToString(v);
        }
        return oneLine(new String(v, StandardCharsets.UTF_8));
    }

    /** @return the bytes as text if they are valid UTF-8, else null */
    private static String strictUtf8(byte[] v) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(v)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static boolean isPlain(String text) {
        return text.codePoints().noneMatch(c -> isControl(c) && PRINTABLE_CONTROLS.indexOf(c) < 0);
    }

    private static boolean isControl(int c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || c == '\u0085';
    }

    /** @return {@code text} escaped onto one line: backslash, line feed, carriage return and other controls */
    static String oneLine(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append('\t');
                default -> {
                    if (isControl(c)) {
                        b.append(String.format("\\u%04X", c));
                    } else {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }
}
