package io.memscope.recording;

/**
 * Exact cumulative allocation totals of a site since recording started (exact mode counts every allocation,
 * sampled or not). A later SITE_COUNTS entry for the same site supersedes an earlier one.
 *
 * @param siteId      the site
 * @param allocations number of allocations
 * @param bytes       bytes allocated
 */
public record SiteCount(int siteId, long allocations, long bytes) {
}
