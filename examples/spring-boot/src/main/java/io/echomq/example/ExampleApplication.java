package io.echomq.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small Spring Boot application on {@code echomq-spring-boot-starter}, meant to be read and run:
 *
 * <ul>
 *   <li>{@link NightlyReport}: a {@code @Scheduled} task under {@code @Locked}, so that it runs on one
 *       instance at a time however many are started;</li>
 *   <li>{@link Mailer}: an {@code @EchoJobHandler} on the {@code emails} queue;</li>
 *   <li>{@link EmailController}: {@code POST /emails} enqueues through {@code EchoMQTemplate};</li>
 *   <li>the actuator's {@code /actuator/health} (with the starter's {@code echomq} indicator) and
 *       {@code /actuator/info}.</li>
 * </ul>
 *
 * Both of the application's own records, the report runs and the sent emails, are kept in Redis by
 * {@link Journal}, so that several instances can be watched (and tested) together.
 */
@SpringBootApplication
@EnableScheduling
public class ExampleApplication {

    /**
     * Starts the application; Spring Boot's arguments apply ({@code --echomq.redis.url=…},
     * {@code --server.port=…}, {@code --example.instance=…}).
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }
}
