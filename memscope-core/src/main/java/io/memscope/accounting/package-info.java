/**
 * Memory accounting for memory the application manages itself (caches, buffer pools, off-heap stores,
 * per-tenant workloads): named instruments, per-owner statistics with low / current / high watermarks carried
 * thread &rarr; account (user@host) &rarr; user, host &rarr; global as MySQL's performance schema does, summary
 * tables, truncate, budgets and a JMX view.
 *
 * <p>Entry point: {@link io.memscope.accounting.MemoryAccounting}. See docs/accounting.md.
 */
package io.memscope.accounting;
