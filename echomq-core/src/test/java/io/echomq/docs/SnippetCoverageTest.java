package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of README.md and docs/*.md is either a program that one of the docs tests runs exactly as it
 * stands, or marked {@code <!-- not run: <reason> -->} in its page. A new snippet that is neither fails here, and so
 * does a program that no test runs.
 */
class SnippetCoverageTest {
    /** The programs the docs tests run, by class name, and the test that runs each. */
    static final Map<String, String> RUN = Map.ofEntries(
            Map.entry("LockQuickStart", "DocsExamplesTest"),
            Map.entry("LockOptions", "DocsExamplesTest"),
            Map.entry("LockSettings", "DocsExamplesTest"),
            Map.entry("LossStopsWork", "DocsExamplesTest"),
            Map.entry("FencedWrite", "DocsExamplesTest"),
            Map.entry("OneContract", "DocsExamplesTest"),
            Map.entry("LockAdapter", "DocsExamplesTest"),
            Map.entry("QueueQuickStart", "QueueDocsExamplesTest"),
            Map.entry("LeaseLossInAHandler", "QueueDocsExamplesTest"),
            Map.entry("StopCooperatively", "QueueDocsExamplesTest"),
            Map.entry("Enqueueing", "QueueDocsExamplesTest"),
            Map.entry("WorkerSettings", "QueueDocsExamplesTest"),
            Map.entry("ClaimByHand", "QueueDocsExamplesTest"),
            Map.entry("DeadLetters", "QueueDocsExamplesTest"),
            Map.entry("RetryPolicies", "QueueDocsExamplesTest"),
            Map.entry("OperatingAQueue", "QueueDocsExamplesTest"),
            Map.entry("RecurringSchedules", "QueueDocsExamplesTest"),
            Map.entry("PauseAndCancel", "ControlDocsExamplesTest"),
            Map.entry("PendingLayout", "ControlDocsExamplesTest"),
            Map.entry("ListingAndRetention", "ListingDocsExamplesTest"),
            Map.entry("Timeouts", "TimeoutDocsExamplesTest"),
            Map.entry("TimeoutPrecedence", "TimeoutDocsExamplesTest"),
            Map.entry("FairGroupsExample", "GroupsDocsExamplesTest"),
            Map.entry("FlowControlQuickStart", "FlowDocsExamplesTest"),
            Map.entry("HandlerBackOff", "FlowDocsExamplesTest"),
            Map.entry("ShardedQuickStart", "ShardedDocsExamplesTest"),
            Map.entry("RedlockQuickStart", "RedlockDocsExamplesTest"),
            Map.entry("ClusterQuickStart", "ScalingDocsExamplesTest"),
            Map.entry("SentinelQuickStart", "SentinelDocsExamplesTest"),
            Map.entry("TlsClients", "SecurityDocsExamplesTest"),
            Map.entry("OwnInstrumentation", "ObservabilityDocsExamplesTest"),
            Map.entry("FollowQueueEvents", "ObservabilityDocsExamplesTest"),
            Map.entry("JobResults", "ResultsDocsExamplesTest"));

    @Test
    void everySnippetIsRunOrMarkedNotRun() {
        List<DocSnippets.Snippet> all = DocSnippets.all();
        assertThat(all).hasSizeGreaterThan(10);
        List<String> neither = all.stream()
                .filter(s -> s.notRunWhy() == null && !runs(s))
                .map(s -> s + " (" + s.className() + ")").toList();
        assertThat(neither).as("snippets neither run by a docs test nor marked '<!-- not run: reason -->'")
                .isEmpty();
        List<String> markedPrograms = all.stream()
                .filter(s -> s.notRunWhy() != null && runs(s))
                .map(DocSnippets.Snippet::toString).toList();
        assertThat(markedPrograms).as("programs a test runs, marked not run").isEmpty();
        Set<String> programs = all.stream().filter(SnippetCoverageTest::runs).map(DocSnippets.Snippet::className)
                .collect(Collectors.toSet());
        assertThat(programs).as("every program the tests name is still in the docs").containsAll(RUN.keySet());
    }

    private static boolean runs(DocSnippets.Snippet s) {
        return s.className() != null && RUN.containsKey(s.className());
    }
}
