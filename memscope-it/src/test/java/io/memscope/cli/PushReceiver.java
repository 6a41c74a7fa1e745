package io.memscope.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.memscope.analysis.export.pprof.ProfileProto;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * Grafana Pyroscope's {@code POST /ingest} as its documentation and ingest handler describe it, on the JDK's
 * HttpServer: query parameters {@code name} (application name with {@code {k=v,...}} labels), {@code from},
 * {@code until} (unix seconds), {@code format=pprof}, {@code spyName}; a {@code multipart/form-data} body whose
 * {@code profile} part is a gzipped pprof and whose {@code sample_type_config} part is JSON. Each profile is decoded
 * with protobuf-java's messages generated from memscope-analysis's {@code profile.proto}: a decoder independent of
 * memscope's encoder. Answers as told: {@link Mode#OK} (200), {@link Mode#ERROR} (500), {@link Mode#HANG} (reads
 * the request, never answers until {@link #close}).
 */
final class PushReceiver implements AutoCloseable {
    enum Mode { OK, ERROR, HANG }

    /** One request as received. */
    record Push(Map<String, String> query, Map<String, String> headers, ProfileProto.Profile profile,
                String sampleTypeConfig) {
        /** @return the application name without its labels */
        String name() {
            String n = query.get("name");
            int brace = n.indexOf('{');
            return brace < 0 ? n : n.substring(0, brace);
        }

        /** @return the labels of the name parameter */
        Map<String, String> labels() {
            Map<String, String> m = new LinkedHashMap<>();
            String n = query.get("name");
            int brace = n.indexOf('{');
            if (brace >= 0 && n.endsWith("}")) {
                for (String kv : n.substring(brace + 1, n.length() - 1).split(",")) {
                    int eq = kv.indexOf('=');
                    m.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            return m;
        }
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final CountDownLatch released = new CountDownLatch(1);
    final List<Push> pushes = new CopyOnWriteArrayList<>();
    final List<String> errors = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();

    PushReceiver(Mode mode) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(pool);
        server.createContext("/ingest", ex -> handle(ex, mode));
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex, Mode mode) throws IOException {
        requests.incrementAndGet();
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            if (mode == Mode.HANG) {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            if (mode == Mode.ERROR) {
                ex.sendResponseHeaders(500, -1);
                return;
            }
            try {
                pushes.add(parse(ex, body));
                ex.sendResponseHeaders(200, -1);
            } catch (Exception e) {
                errors.add(e.toString());
                ex.sendResponseHeaders(400, -1);
            }
        }
    }

    private static Push parse(HttpExchange ex, byte[] body) throws IOException {
        if (!ex.getRequestMethod().equals("POST")) {
            throw new IOException("method " + ex.getRequestMethod());
        }
        Map<String, String> query = new LinkedHashMap<>();
        for (String kv : ex.getRequestURI().getRawQuery().split("&")) {
            int eq = kv.indexOf('=');
            query.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
        Map<String, String> headers = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
        String type = headers.get("content-type");
        if (type == null || !type.startsWith("multipart/form-data")) {
            throw new IOException("content type " + type);
        }
        String boundary = type.substring(type.indexOf("boundary=") + "boundary=".length());
        Map<String, byte[]> parts = multipart(body, boundary);
        byte[] gz = parts.get("profile");
        if (gz == null) {
            throw new IOException("no profile part: " + parts.keySet());
        }
        ProfileProto.Profile p;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            p = ProfileProto.Profile.parseFrom(in);
        }
        byte[] config = parts.get("sample_type_config");
        return new Push(query, headers, p, config == null ? null : new String(config, StandardCharsets.UTF_8));
    }

    /** The parts of a multipart/form-data body by their {@code name}; each must have a {@code filename}. */
    private static Map<String, byte[]> multipart(byte[] body, String boundary) throws IOException {
        Map<String, byte[]> parts = new LinkedHashMap<>();
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(body, delimiter, 0);
        while (at >= 0) {
            int start = at + delimiter.length;
            if (start + 1 < body.length && body[start] == '-' && body[start + 1] == '-') {
                return parts; // the closing delimiter
            }
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), start);
            String head = new String(body, start, headersEnd - start, StandardCharsets.US_ASCII);
            int next = indexOf(body, ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII), headersEnd);
            if (headersEnd < 0 || next < 0) {
                throw new IOException("malformed multipart body");
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"([^\"]*)\"").matcher(head);
            if (!m.find() || !head.contains("filename=\"")) {
                throw new IOException("part without a name or filename: " + head);
            }
            parts.put(m.group(1), java.util.Arrays.copyOfRange(body, headersEnd + 4, next));
            at = next + 2;
        }
        throw new IOException("no closing delimiter");
    }

    private static int indexOf(byte[] a, byte[] b, int from) {
        outer:
        for (int i = Math.max(0, from); i <= a.length - b.length; i++) {
            for (int j = 0; j < b.length; j++) {
                if (a[i + j] != b[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
        pool.shutdownNow();
    }

    /** The values of sample type {@code type} per sample, with the function names of the sample's locations. */
    static long sum(ProfileProto.Profile p, String type, java.util.function.Predicate<List<String>> stack) {
        int index = sampleTypeIndex(p, type);
        if (index < 0) {
            throw new AssertionError("no sample type " + type);
        }
        long total = 0;
        for (ProfileProto.Sample s : p.getSampleList()) {
            if (stack.test(frames(p, s))) {
                total += s.getValue(index);
            }
        }
        return total;
    }

    /** @return the index of the sample type named {@code type} in the profile's values, -1 when it has none */
    static int sampleTypeIndex(ProfileProto.Profile p, String type) {
        int index = -1;
        for (int i = 0; i < p.getSampleTypeCount(); i++) {
            if (p.getStringTable((int) p.getSampleType(i).getType()).equals(type)) {
                index = i;
            }
        }
        return index;
    }

    /** @return the sample's frames, leaf first, as {@code function(file:line)} */
    static List<String> frames(ProfileProto.Profile p, ProfileProto.Sample s) {
        Map<Long, ProfileProto.Location> locs = new java.util.HashMap<>();
        for (ProfileProto.Location l : p.getLocationList()) {
            locs.put(l.getId(), l);
        }
        Map<Long, ProfileProto.Function> fns = new java.util.HashMap<>();
        for (ProfileProto.Function f : p.getFunctionList()) {
            fns.put(f.getId(), f);
        }
        List<String> out = new java.util.ArrayList<>();
        for (long id : s.getLocationIdList()) {
            ProfileProto.Line line = locs.get(id).getLine(0);
            ProfileProto.Function f = fns.get(line.getFunctionId());
            out.add(p.getStringTable((int) f.getName()) + "(" + p.getStringTable((int) f.getFilename()) + ":"
                    + line.getLine() + ")");
        }
        return out;
    }
}
