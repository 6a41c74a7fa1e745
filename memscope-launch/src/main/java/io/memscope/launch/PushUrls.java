package io.memscope.launch;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The push's base URL: validated ({@code http} or {@code https}, a host, no credentials, no query), and shown in
 * messages without its user-info part, so that a token put there by mistake never reaches a log.
 */
public final class PushUrls {
    private PushUrls() {
    }

    /** @return the URL without a trailing '/' @throws IllegalArgumentException naming what is wrong (not the URL) */
    static String validate(String v) {
        URI u;
        try {
            u = new URI(v.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL");
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            throw new IllegalArgumentException("expected an http or https URL");
        }
        if (u.getRawUserInfo() != null) {
            throw new IllegalArgumentException("credentials in the URL are refused (the JVM prints its agent options "
                    + "on stderr): set " + AgentOptions.PUSH_AUTH_ENV + " or pushAuthFile=PATH");
        }
        if (u.getHost() == null) {
            throw new IllegalArgumentException("expected a host");
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null) {
            throw new IllegalArgumentException("expected no query or fragment (the push adds /ingest?...)");
        }
        String s = u.toString();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    /** @return {@code url} with any {@code user:password@} part replaced by {@code ***@} (for messages) */
    public static String withoutUserInfo(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int end = url.length();
        for (int i = start; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c == '/' || c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        int at = url.lastIndexOf('@', end - 1);
        return at >= start ? url.substring(0, start) + "***@" + url.substring(at + 1) : url;
    }
}
