package io.echomq.spring.lock;

import io.echomq.lock.Locks;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link Locked} advisor, and an auto-proxy creator if the application has none
 * (Spring Boot's AOP auto-configuration usually registers a stronger one, which also picks up
 * this infrastructure advisor). Imported by the starter's auto-configuration; an application
 * without Boot may import it itself next to a {@link Locks} bean.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(LockedConfiguration.ProxyCreator.class)
public class LockedConfiguration {

    /** Created by Spring. */
    public LockedConfiguration() {
    }

    /**
     * @param locks the application's lock client, looked up at the first locked call
     * @param beanFactory for {@code @bean} references and {@code ${...}} placeholders
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static LockedAdvisor echomqLockedAdvisor(ObjectProvider<Locks> locks, ConfigurableListableBeanFactory beanFactory) {
        return new LockedAdvisor(new LockedInterceptor(locks::getObject, beanFactory, beanFactory::resolveEmbeddedValue));
    }

    /** Registers Spring's infrastructure auto-proxy creator unless a stronger one is already there. */
    static class ProxyCreator implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
