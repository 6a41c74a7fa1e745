package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pushes a profile of every interval to Grafana Pyroscope's HTTP ingestion API, on memscope's own daemon thread
 * {@code memscope-push}:
 *
 * <pre>
 *   POST {url}/ingest?name={name}{host=H,pid=P,k=v...}&amp;from={unix s}&amp;until={unix s}&amp;format=pprof&amp;spyName=memscope
 *   Content-Type: multipart/form-data; boundary=...
 *     part "profile"            (filename profile.pprof): the interval's pprof, gzipped ({@link PushProfile})
 *     part "sample_type_config" (filename sample_type_config.json): per sample type its units, aggregation
 *                               (sum for allocations, average for what is held), cumulative false, sampled true
 *   X-Scope-OrgID: {tenant}       when given
 *   Authorization: {value}        when given (from the environment or a private file, never the argument string)
 * </pre>
 *
 * <p>Never hurts the application: the profile is built and sent on this thread only; at most {@value #QUEUE}
 * profiles wait (a new one pushes the oldest out, counted as dropped); a request has 2 s to connect and 5 s to answer;
 * after a failure the next attempt waits 1 s, doubling to 60 s, with ±25% jitter (a fleet that lost its backend does
 * not come back in step). A profile the backend refuses for good (4xx other than 408 and 429) is dropped. Nothing is
 * done at the JVM's exit: {@link #stop} ends the thread at once, the profile of the interval that was running is
 * not sent (it is in the recording). Counters: {@link #metadata}.
 */
public final class ProfilePusher {
    /** Profiles waiting at most. */
    static final int QUEUE = 3;
    static final int CONNECT_TIMEOUT_MILLIS = 2000;
    static final int READ_TIMEOUT_MILLIS = 5000;
    static final long BACKOFF_MIN_MILLIS = 1000;
    static final long BACKOFF_MAX_MILLIS = 60_000;

    /** Builds the profile of an interval ({@link PushSource}). */
    interface Source {
        byte[] profile(long fromEpochMillis, long untilEpochMillis) throws IOException;

        /** Adds the source's own counters to {@link #metadata}. */
        default void metadata(Map<String, String> into) {
        }

        /** The push stopped: the source stops following the application. */
        default void stop() {
        }
    }

    /** What and where to push. {@code labels}: the application's labels, host and pid added at the first push. */
    public record Settings(String url, long intervalMillis, String name, Map<String, String> labels, String tenant,
                           String authorization) {
        @Override
        public String toString() { // never the authorization
            return "push to " + url + " every " + intervalMillis + " ms as " + name;
        }
    }

    private record Pending(byte[] profile, long fromEpochMillis, long untilEpochMillis) {
    }

    private final Settings settings;
    private final Source source;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile String lastError;
    private volatile boolean running;
    private Thread thread;
    /** The application name with its labels, as the {@code name} parameter wants it (made on the push thread). */
    private String nameWithLabels;
    private final String boundary = "memscope-" + Long.toHexString(System.nanoTime());

    ProfilePusher(Settings settings, Source source) {
        this.settings = settings;
        this.source = source;
    }

    /** Starts the push thread. */
    synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                loop();
            }
        }, "memscope-push");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Stops at once: no last push (see the class comment). */
    public synchronized void stop() {
        running = false;
        source.stop();
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** @return the counters, for the recording's metadata and the agent's MXBean ({@code PushCounters}) */
    public Map<String, String> metadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("push.url", settings.url());
        m.put("push.name", settings.name());
        m.put("push.sent", Long.toString(sent.get()));
        m.put("push.dropped", Long.toString(dropped.get()));
        m.put("push.failed", Long.toString(failed.get()));
        String e = lastError;
        if (e != null) {
            m.put("push.lastError", e);
        }
        source.metadata(m);
        return m;
    }

    long sent() {
        return sent.get();
    }

    long dropped() {
        return dropped.get();
    }

    long failed() {
        return failed.get();
    }

    private void loop() {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true; // memscope's own thread: its allocations are not the application's
        }
        long interval = settings.intervalMillis();
        long from = System.currentTimeMillis();
        long nextSnapshot = System.nanoTime() + interval * 1_000_000L;
        long retryAt = 0;
        long backoff = 0;
        while (running) {
            try {
                long now = System.nanoTime();
                if (now - nextSnapshot >= 0) {
                    long until = System.currentTimeMillis();
                    snapshot(from, until);
                    from = until;
                    nextSnapshot += interval * 1_000_000L;
                    if (now - nextSnapshot >= 0) {
                        nextSnapshot = now + interval * 1_000_000L; // fell behind (a send that hung): skip ahead
                    }
                }
                Pending head;
                synchronized (queue) {
                    head = queue.peekFirst();
                }
                if (head != null && now - retryAt >= 0 && running) {
                    String error = send(head);
                    if (error == null) {
                        sent.incrementAndGet();
                        remove(head);
                        backoff = 0;
                    } else {
                        failed.incrementAndGet();
                        lastError = error;
                        if (error.startsWith("refused")) {
                            remove(head);
                            dropped.incrementAndGet(); // the backend will never take it
                        }
                        backoff = backoff == 0 ? BACKOFF_MIN_MILLIS : Math.min(BACKOFF_MAX_MILLIS, backoff * 2);
                        long jittered = (long) (backoff * (0.75 + 0.5 * ThreadLocalRandom.current().nextDouble()));
                        retryAt = System.nanoTime() + jittered * 1_000_000L;
                    }
                    continue;
                }
                long wake = nextSnapshot;
                if (head != null && retryAt - wake < 0) {
                    wake = retryAt;
                }
                long sleepMillis = Math.max(1, (wake - System.nanoTime()) / 1_000_000L);
                Thread.sleep(sleepMillis);
            } catch (InterruptedException e) {
                // stop(): the loop's condition ends it
            } catch (Throwable t) {
                lastError = "push: " + t.getClass().getSimpleName();
                failed.incrementAndGet();
                try {
                    Failures.report("agent.push", t);
                    Thread.sleep(BACKOFF_MIN_MILLIS);
                } catch (Throwable ignored) {
                    // interrupted or out of memory: the loop's condition decides
                }
            }
        }
        synchronized (queue) {
            queue.clear();
        }
    }

    private void remove(Pending p) {
        synchronized (queue) {
            if (queue.peekFirst() == p) {
                queue.pollFirst();
            }
        }
    }

    /** Builds the interval's profile and queues it, pushing the oldest out when the queue is full. */
    private void snapshot(long fromEpochMillis, long untilEpochMillis) {
        byte[] profile;
        try {
            profile = source.profile(fromEpochMillis, untilEpochMillis);
        } catch (Throwable t) {
            failed.incrementAndGet();
            lastError = "building the profile: " + t.getClass().getSimpleName();
            Failures.report("agent.push.profile", t);
            return;
        }
        if (profile == null) {
            return;
        }
        synchronized (queue) {
            if (queue.size() >= QUEUE) {
                queue.pollFirst();
                dropped.incrementAndGet();
            }
            queue.addLast(new Pending(profile, fromEpochMillis, untilEpochMillis));
        }
    }

    /** @return null when the backend took it, else what went wrong ("refused ..." when it never will) */
    private String send(Pending p) {
        String target = settings.url() + "/ingest";
        HttpURLConnection c = null;
        try {
            byte[] body = body(p.profile());
            URL u = new URL(target + "?" + query(p));
            c = (HttpURLConnection) u.openConnection();
            c.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
            c.setReadTimeout(READ_TIMEOUT_MILLIS);
            c.setUseCaches(false);
            c.setInstanceFollowRedirects(false);
            c.setDoOutput(true);
            c.setRequestMethod("POST");
            c.setRequestProperty("Content-Type", "multipart/form-data; boundary=" + boundary);
            c.setRequestProperty("User-Agent", "memscope-agent");
            if (settings.tenant() != null) {
                c.setRequestProperty("X-Scope-OrgID", settings.tenant());
            }
            if (settings.authorization() != null) {
                c.setRequestProperty("Authorization", settings.authorization());
            }
            c.setFixedLengthStreamingMode(body.length);
            try (OutputStream out = c.getOutputStream()) {
                out.write(body);
            }
            int code = c.getResponseCode();
            drain(code >= 400 ? c.getErrorStream() : c.getInputStream());
            if (code >= 200 && code < 300) {
                return null;
            }
            boolean never = code >= 400 && code < 500 && code != 408 && code != 429;
            return (never ? "refused: HTTP " : "HTTP ") + code + " from " + target;
        } catch (Throwable t) {
            String why = t.getMessage();
            return t.getClass().getSimpleName() + (why == null ? "" : ": " + oneLine(why)) + " (" + target + ")";
        } finally {
            if (c != null) {
                c.disconnect();
            }
        }
    }

    private static String oneLine(String s) {
        String t = s.replace('\n', ' ').replace('\r', ' ');
        return t.length() > 200 ? t.substring(0, 200) : t;
    }

    /** Reads what the server answered (at most 64 KiB) so that the connection can be reused, then closes it. */
    private static void drain(InputStream in) throws IOException {
        if (in == null) {
            return;
        }
        try (InputStream i = in) {
            byte[] buf = new byte[4096];
            int total = 0;
            for (int n = i.read(buf); n > 0 && total < 65536; n = i.read(buf)) {
                total += n;
            }
        }
    }

    private String query(Pending p) {
        if (nameWithLabels == null) {
            nameWithLabels = nameWithLabels(settings.name(), settings.labels());
        }
        long from = p.fromEpochMillis() / 1000;
        long until = Math.max(from + 1, (p.untilEpochMillis() + 999) / 1000);
        return "name=" + URLEncoder.encode(nameWithLabels, StandardCharsets.UTF_8) + "&from=" + from + "&until="
                + until + "&format=pprof&spyName=memscope";
    }

    /** {@code name{host=H,pid=P,k=v}}: host and pid first, the application's labels after (they may replace them). */
    static String nameWithLabels(String name, Map<String, String> labels) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("host", hostName());
        all.put("pid", Long.toString(ProcessInfo.pid()));
        all.putAll(labels);
        StringBuilder b = new StringBuilder(name).append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : all.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(e.getKey()).append('=').append(e.getValue());
        }
        return b.append('}').toString();
    }

    /** The host's name: $HOSTNAME, else the local host's (a lookup: on the push thread only). */
    private static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank()) {
            try {
                h = java.net.InetAddress.getLocalHost().getHostName();
            } catch (Throwable t) {
                h = "unknown";
            }
        }
        return h.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private byte[] body(byte[] profile) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(profile.length + 1024);
        part(b, "profile", "profile.pprof", profile);
        part(b, "sample_type_config", "sample_type_config.json", sampleTypeConfig().getBytes(StandardCharsets.UTF_8));
        b.write(("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    private void part(ByteArrayOutputStream b, String name, String file, byte[] content) throws IOException {
        b.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + file
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        b.write(content);
        b.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** Per sample type: units, aggregation (sum: allocated in the interval; average: held), delta, sampled. */
    static String sampleTypeConfig() {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < PushProfile.TYPES.length; i++) {
            String type = PushProfile.TYPES[i][0];
            boolean alloc = type.startsWith("alloc_");
            if (i > 0) {
                b.append(',');
            }
            b.append('"').append(type).append("\":{\"units\":\"")
                    .append(type.endsWith("_objects") ? "objects" : "bytes").append("\",\"aggregation\":\"")
                    .append(alloc ? "sum" : "average").append("\",\"cumulative\":false,\"sampled\":")
                    .append(!type.startsWith("native_")).append('}');
        }
        return b.append('}').toString();
    }
}
