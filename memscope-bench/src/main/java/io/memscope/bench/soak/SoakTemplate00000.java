package io.memscope.bench.soak;

import java.util.function.IntFunction;

/**
 * The class {@link SoakMain}'s workload defines again and again under new names (the digits of its name replaced in
 * its class file): every copy brings new allocation sites and stacks, in its method and in its lambda.
 */
public final class SoakTemplate00000 implements IntFunction<Object> {
    @Override
    public Object apply(int size) {
        IntFunction<Object> inLambda = n -> new byte[n];
        Object[] pair = new Object[2];
        pair[0] = inLambda.apply(size);
        pair[1] = new long[size / 8];
        return pair;
    }
}
