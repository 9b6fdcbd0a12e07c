package io.echomq.spring.queue;

import io.echomq.queue.Job;
import io.echomq.queue.JobHandler;
import io.echomq.queue.NonRetryableException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.springframework.util.ReflectionUtils;

/**
 * Adapts one {@link EchoJobHandler} method to the core's {@link JobHandler}: it builds the
 * arguments (the decoded payload, the {@link Job}), calls the method, and passes its exception on
 * unwrapped so the worker's retry rules see the real type. A payload that does not decode is a
 * {@link NonRetryableException}: it would not decode on the next attempt either.
 */
final class HandlerMethod implements JobHandler {
    private final Object bean;
    private final Method method;
    private final PayloadCodec codec;
    private final int payloadIndex;
    private final Type payloadType;
    private final int jobIndex;

    /**
     * @throws IllegalStateException naming the method if a parameter is neither the payload nor the job,
     *     or the codec cannot read the payload's type
     */
    HandlerMethod(Object bean, Method method, PayloadCodec codec) {
        this.bean = bean;
        this.method = method;
        this.codec = codec;
        int payload = -1;
        int job = -1;
        Type[] types = method.getGenericParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Job.class) {
                if (job >= 0) {
                    throw fail("has two Job parameters");
                }
                job = i;
            } else if (payload >= 0) {
                throw fail("has two payload parameters; take one payload and optionally the Job");
            } else {
                payload = i;
            }
        }
        this.payloadIndex = payload;
        this.jobIndex = job;
        this.payloadType = payload >= 0 ? types[payload] : null;
        if (payloadType != null && !codec.canDecode(payloadType)) {
            throw fail("takes a " + payloadType.getTypeName() + " payload, which " + codec.getClass().getSimpleName()
                    + " cannot read; take byte[] or String, or add Jackson 3 for JSON");
        }
        ReflectionUtils.makeAccessible(method);
    }

    @Override
    public void handle(Job job) throws Exception {
        Object[] args = new Object[method.getParameterCount()];
        if (jobIndex >= 0) {
            args[jobIndex] = job;
        }
        if (payloadIndex >= 0) {
            try {
                args[payloadIndex] = codec.decode(job.payload(), payloadType);
            } catch (IllegalArgumentException e) {
                throw new NonRetryableException(e.getMessage(), e);
            }
        }
        try {
            method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** @return the method, for messages */
    String describe() {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }

    IllegalStateException fail(String problem) {
        return new IllegalStateException("@EchoJobHandler on " + describe() + ": " + problem);
    }
}
