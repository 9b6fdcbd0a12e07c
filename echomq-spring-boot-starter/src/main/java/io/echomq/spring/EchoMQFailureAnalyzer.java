package io.echomq.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidEchoMQPropertyException} anywhere in a failed startup's causes into Spring
 * Boot's failure report: the description is the one line {@code <property>: <what is wrong>}, and
 * the action says which property to fix. Registered in {@code META-INF/spring.factories}.
 */
public class EchoMQFailureAnalyzer extends AbstractFailureAnalyzer<InvalidEchoMQPropertyException> {

    /** Creates the analyzer; Spring Boot instantiates it from {@code spring.factories}. */
    public EchoMQFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidEchoMQPropertyException cause) {
        return new FailureAnalysis(oneLine(cause.getMessage()), "Fix the property " + cause.property() + ".", cause);
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
