package io.echomq.example;

import java.lang.management.ManagementFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * This process's name in the records and logs: {@code example.instance}, or {@code pid@host} by
 * default, so that two instances on one machine are told apart.
 */
@Component
public class Instance {
    private final String id;

    /** @param configured the {@code example.instance} property, empty for the default */
    public Instance(@Value("${example.instance:}") String configured) {
        this.id = configured.isBlank() ? ManagementFactory.getRuntimeMXBean().getName() : configured;
    }

    /** @return the instance's name, without spaces */
    public String id() {
        return id.replace(' ', '_');
    }
}
