/** Micrometer meters for memscope. */
package io.memscope.micrometer;
