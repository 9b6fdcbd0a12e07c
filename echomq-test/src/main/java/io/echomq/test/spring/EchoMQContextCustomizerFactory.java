package io.echomq.test.spring;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Makes the {@link EchoMQContextCustomizer} of a test class that carries {@link AutoConfigureEchoMQTest} (on itself,
 * a superclass or an enclosing class); Spring's test framework finds this factory through that annotation.
 */
public final class EchoMQContextCustomizerFactory implements ContextCustomizerFactory {
    /** Created by Spring's test framework. */
    public EchoMQContextCustomizerFactory() {
    }

    /**
     * @param testClass the test class
     * @param configAttributes its context configuration
     * @return the customizer for the annotation's values, or null when the class does not carry it
     */
    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass,
                                                     List<ContextConfigurationAttributes> configAttributes) {
        AutoConfigureEchoMQTest annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureEchoMQTest.class);
        return annotation == null ? null : new EchoMQContextCustomizer(annotation.workers());
    }
}
