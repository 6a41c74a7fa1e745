package io.memscope.agent.capture;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.memscope.internal.error.Failures;
import java.lang.management.GarbageCollectorMXBean;
import java.util.ArrayList;
import java.util.List;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The JDK's GC notifications ({@code GarbageCollectionNotificationInfo}) for a {@link CollectionLog}: the listener
 * registered on the platform's GC beans, which hands each bean collection's figures, cause and action to the log
 * ({@link CollectionLog#arrive}), and its removal at the end of the capture. Its registrations are guarded by the
 * log's lock, which {@link CollectionLog#stop} takes too: a capture that ends meanwhile either finds a registration
 * (and removes it) or keeps it from being made. Created by the log's listener thread, so that JMX is not loaded with
 * the log.
 */
final class GcNotifications implements NotificationListener {
    private final CollectionLog log;
    /** The beans this listener is registered on (guarded by the log's lock). */
    private final List<NotificationEmitter> emitters = new ArrayList<>();

    GcNotifications(CollectionLog log) {
        this.log = log;
    }

    /** @return false when the log stopped meanwhile (the beans registered on stay so until {@link #unregister}) */
    boolean register(GcBeans.Platform platform) {
        for (GarbageCollectorMXBean gc : platform.beans()) {
            if (gc instanceof NotificationEmitter) {
                NotificationEmitter e = (NotificationEmitter) gc;
                synchronized (log) {
                    if (log.stopped()) {
                        return false;
                    }
                    e.addNotificationListener(this, null, null);
                    emitters.add(e);
                }
            }
        }
        return true;
    }

    /** Under the log's lock: whether the listener is registered on a bean. */
    boolean registered() {
        return !emitters.isEmpty();
    }

    /** Removes the listener from every bean (end of capture). */
    void unregister() {
        List<NotificationEmitter> es;
        synchronized (log) {
            es = new ArrayList<>(emitters);
            emitters.clear();
        }
        for (NotificationEmitter e : es) {
            try {
                e.removeNotificationListener(this);
            } catch (Exception ex) {
                Failures.report("agent.gc.stop", ex);
            }
        }
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        ThreadState ts = ThreadState.current();
        if (ts != null) {
            ts.busy = true;
        }
        try {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GcBeans.Platform b = log.notificationBeans();
            if (b == null) {
                return;
            }
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            int bean = b.indexOf(info.getGcName());
            if (bean < 0) {
                return;
            }
            GcInfo gi = info.getGcInfo();
            GcBeans.Collection c = b.collection(bean, gi);
            log.arrive(new GcDetails(info.getGcName(), info.getGcAction(), info.getGcCause(), GcDetails.key(bean, c.id()),
                    c.startMillis(), c.durationMillis(), c.usedBefore(), c.usedAfter(), c.committedAfter(),
                    log.now(), true));
        } catch (Throwable t) {
            Failures.report("agent.gc", t);
        } finally {
            if (ts != null) {
                ts.busy = false;
            }
        }
    }
}
