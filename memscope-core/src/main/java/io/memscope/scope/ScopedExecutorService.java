package io.memscope.scope;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An {@link ExecutorService} whose tasks run inside the scope path that was open on the submitting thread when
 * they were submitted ({@link ScopeTracker#wrap(Runnable)}): a request's tasks count under the request wherever
 * they run, virtual-thread executors included. Tasks submitted with no scope open run as they are. Every other
 * method is the wrapped executor's. Made by {@link ScopeTracker#scoped(ExecutorService)}.
 */
final class ScopedExecutorService implements ExecutorService {
    private final ExecutorService delegate;
    private final ScopeTracker tracker;

    ScopedExecutorService(ExecutorService delegate, ScopeTracker tracker) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
        this.tracker = java.util.Objects.requireNonNull(tracker, "tracker");
    }

    private <T> List<Callable<T>> wrapAll(Collection<? extends Callable<T>> tasks) {
        List<Callable<T>> l = new ArrayList<>(tasks.size());
        for (Callable<T> c : tasks) {
            l.add(tracker.wrap(c));
        }
        return l;
    }

    @Override
    public void execute(Runnable command) {
        delegate.execute(tracker.wrap(command));
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return delegate.submit(tracker.wrap(task));
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return delegate.submit(tracker.wrap(task), result);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return delegate.submit(tracker.wrap(task));
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return delegate.invokeAll(wrapAll(tasks));
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        return delegate.invokeAll(wrapAll(tasks), timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return delegate.invokeAny(wrapAll(tasks));
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return delegate.invokeAny(wrapAll(tasks), timeout, unit);
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return delegate.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
        return "ScopedExecutorService[" + delegate + "]";
    }
}
