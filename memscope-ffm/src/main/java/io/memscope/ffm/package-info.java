/**
 * Native memory that application code manages itself through the Foreign Function &amp; Memory API (Java 22+):
 * {@link io.memscope.ffm.TrackingArena} accounts every segment under an instrument and, when the memscope agent
 * runs, has each block recorded once with the site and stack of the code that asked for it. Depends on
 * memscope-core only.
 */
package io.memscope.ffm;
