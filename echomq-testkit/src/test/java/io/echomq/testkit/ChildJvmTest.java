package io.echomq.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void runsAMainClassOnTheTestClassPathAndTalksOverStdio() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        try (ChildJvm child = ChildJvm.start(ChildMainForTest.class.getName(), heard::add)) {
            assertThat(child.awaitLine(l -> l.startsWith("ready "), WAIT)).isEqualTo("ready " + child.pid());
            child.send("hello");
            assertThat(child.awaitLine(l -> l.startsWith("echo "), WAIT)).isEqualTo("echo HELLO");
            assertThat(heard).containsExactly("ready " + child.pid(), "echo HELLO");
        }
    }

    @Test
    void pausedChildAnswersNothingUntilResumed() throws Exception {
        try (ChildJvm child = ChildJvm.start(ChildMainForTest.class.getName(), l -> { })) {
            child.awaitLine(l -> l.startsWith("ready "), WAIT);
            child.pause();
            assertThat(child.isPaused()).isTrue();
            assertThat(ProcessHandle.of(child.pid()).orElseThrow().isAlive()).isTrue();
            child.send("while stopped");
            assertThatThrownBy(() -> child.awaitLine(l -> l.equals("echo WHILE STOPPED"), Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("no matching line");
            child.resume();
            assertThat(child.awaitLine(l -> l.equals("echo WHILE STOPPED"), WAIT)).isNotNull();
        }
    }

    @Test
    void killIsImmediateAndRestartRunsTheSameCommandAgain() throws Exception {
        try (ChildJvm child = ChildJvm.start(ChildMainForTest.class.getName(), l -> { })) {
            child.awaitLine(l -> l.startsWith("ready "), WAIT);
            long first = child.pid();
            child.kill();
            assertThat(child.isAlive()).isFalse();
            child.restart();
            assertThat(child.starts()).isEqualTo(2);
            assertThat(child.pid()).isNotEqualTo(first);
            assertThat(child.awaitLine(l -> l.equals("ready " + child.pid()), WAIT)).isNotNull();
        }
    }

    @Test
    void closeKillsAPausedChild() throws Exception {
        ChildJvm child = ChildJvm.start(ChildMainForTest.class.getName(), l -> { });
        child.awaitLine(l -> l.startsWith("ready "), WAIT);
        ProcessHandle handle = ProcessHandle.of(child.pid()).orElseThrow();
        child.pause();
        child.close();
        assertThat(handle.isAlive()).isFalse();
        assertThatThrownBy(child::restart).isInstanceOf(IllegalStateException.class);
    }
}
