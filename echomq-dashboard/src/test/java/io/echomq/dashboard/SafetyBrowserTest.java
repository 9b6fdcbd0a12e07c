package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * "Why it is safe" in Debian's headless Chromium: the run buttons, hover and keyboard focus on
 * each worker (its readout and its lit path, by CSS alone), the verdicts, a run whose key was
 * already held, the standalone page opened with the network off, and the screenshots of
 * {@code docs/images}.
 *
 * <p>Tagged {@code browser}, as {@link BrowserTest}: run by {@code .ci/run}'s browser pass.
 */
@Tag("browser")
class SafetyBrowserTest extends DashboardTestBase {
    static Browser browser;
    static Dashboard acting;
    static Dashboard fixed;

    @BeforeAll
    static void openBrowser() {
        acting = Dashboard.builder(client).token(TOKEN).figures(REDIS.url())
                .serverDescription(REDIS.url() + " · " + Dashboard.productOnly(client.serverDescription())).start();
        fixed = Dashboard.builder(client).token(TOKEN).figures(REDIS.url()).figuresPrefix("emq:figures:fixed:").start();
        browser = new Browser();
        browser.open(acting.startUri().toString());
        browser.open(fixed.startUri().toString());
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
        acting.close();
        fixed.close();
    }

    @Test
    void hoverAndFocusLightEachWorkersPathAndReadItsOwnReply() {
        browser.open(acting.uri() + "safety");
        assertThat(browser.title()).isEqualTo("Why it is safe · EchoMQ");
        browser.click(By.xpath("//button[text()='Run the race']"));

        List<WebElement> lanes = browser.findAll(By.cssSelector("#race .lane"));
        assertThat(lanes).hasSize(4);
        assertThat(readoutShown("race")).as("no worker hovered: the idle readout").startsWith("readout · Hover or focus");
        int oks = 0;
        for (WebElement lane : lanes) {
            browser.hover(lane);
            String readout = readoutShown("race");
            String worker = lane.getAttribute("id").substring("race-".length());
            assertThat(readout).startsWith(worker + " · SET ");
            assertThat(readout).matches(".* → (OK: it found the key absent.*The sole holder\\.|nil: the key is now "
                    + "present, nothing written\\. Not a holder\\.)");
            oks += readout.contains(" → OK: ") ? 1 : 0;
            assertLitOnly(lanes, lane);
        }
        assertThat(oks).as("exactly one worker's readout says OK").isEqualTo(1);
        browser.screenshot("dashboard-safety-race", browser.find(By.id("act-race")),
                lanes.stream().filter(l -> l.getAttribute("class").contains("ok")).findFirst().orElseThrow());

        // The keyboard reaches every worker and lights the same path as the pointer.
        browser.hoverNothing();
        browser.find(By.xpath("//button[text()='Run the race']")).sendKeys("");   // focus lands just before the lanes
        for (WebElement lane : lanes) {
            browser.tab();
            assertThat(browser.focused()).isEqualTo(lane);
            assertThat(readoutShown("race")).isEqualTo(lane.getAttribute("aria-label"));
            assertLitOnly(lanes, lane);
        }
        assertThat(verdicts("race")).matches("Static verdicts — w[1-4] → finds the key absent, writes token "
                + "[0-9a-f]{8}, OK \\(the sole holder\\) · w[1-4], w[1-4], w[1-4] → the key is now present, nil\\. "
                + "Holders of the lock: 1\\. Double-acquired: no\\.");
    }

    @Test
    void theCrashGapsVerdictSaysTheSplitAcquireDeadlocks() {
        browser.open(acting.uri() + "safety");
        browser.click(By.xpath("//button[text()='Run the crash gap']"));

        List<WebElement> lanes = browser.findAll(By.cssSelector("#crash-gap .lane"));
        assertThat(lanes).hasSize(2);
        browser.hover(lanes.get(0));
        assertThat(readoutShown("crash-gap")).startsWith("SET … NX PX · C: SET ").endsWith("A crash deadlocks the resource: no.");
        assertLitOnly(lanes, lanes.get(0));
        browser.hover(lanes.get(1));
        assertThat(readoutShown("crash-gap")).startsWith("SETNX then EXPIRE · A: SETNX ")
                .endsWith("The lock ends with no expiry. A crash deadlocks the resource: yes.");
        assertLitOnly(lanes, lanes.get(1));
        browser.screenshot("dashboard-safety-crash-gap", browser.find(By.id("act-crash-gap")), lanes.get(1));
        assertThat(verdicts("crash-gap")).matches("Static verdicts — SET … NX PX → one command, the lock has an "
                + "expiry \\(PTTL [1-9][0-9]* ms\\), no deadlock · SETNX then EXPIRE → a crash between the two left a "
                + "lock with no expiry \\(TTL -1\\), and the next SETNX got 0: a deadlock\\.");
    }

    @Test
    void theOtherActsLightTheHoveredOrFocusedLaneAndShowItsReadout() {
        for (String[] act : new String[][] {{"blind-del", "Run “Blind DEL against the token release”", "2"},
            {"px-only", "Run “PX without NX”", "3"}, {"fenced", "Run “The stale fenced write”", "2"},
            {"claim-lease", "Run “The claim lease”", "4"}}) {
            browser.open(acting.uri() + "safety");
            browser.click(By.xpath("//button[text()='" + act[1] + "']"));
            List<WebElement> lanes = browser.findAll(By.cssSelector("#" + act[0] + " .lane"));
            assertThat(lanes).as(act[0]).hasSize(Integer.parseInt(act[2]));
            for (WebElement lane : lanes) {
                browser.hover(lane);
                assertThat(readoutShown(act[0])).isEqualTo(lane.getAttribute("aria-label"));
                assertLitOnly(lanes, lane);
            }
            browser.hoverNothing();
            browser.find(By.xpath("//button[text()='" + act[1] + "']")).sendKeys("");
            for (WebElement lane : lanes) {
                browser.tab();
                assertThat(browser.focused()).isEqualTo(lane);
                assertThat(readoutShown(act[0])).isEqualTo(lane.getAttribute("aria-label"));
                assertLitOnly(lanes, lane);
            }
            browser.find(By.xpath("//button[text()='" + act[1] + "']")).sendKeys("");   // no lane keeps the focus
            browser.screenshot("dashboard-safety-" + act[0], browser.find(By.id("act-" + act[0])),
                    lanes.get(lanes.size() - 1));
            assertContrast(act[0]);
        }
    }

    @Test
    void whenTheKeyIsAlreadyHeldEveryWorkersReadoutIsNil() {
        REDIS.raw().call("SET", "emq:figures:fixed:race:lock", "held-by-someone-else");
        browser.open(fixed.uri() + "safety");
        browser.click(By.xpath("//button[text()='Run the race']"));

        List<WebElement> lanes = browser.findAll(By.cssSelector("#race .lane"));
        assertThat(lanes).hasSize(4);
        for (WebElement lane : lanes) {
            browser.hover(lane);
            assertThat(readoutShown("race")).contains(" → nil: the key was already present");
        }
        assertThat(verdicts("race")).isEqualTo("Static verdicts — w1, w2, w3, w4 → the key is already present, nil. "
                + "Holders of the lock: 0. Double-acquired: no.");
    }

    @Test
    void theStandalonePageShowsTheSameFiguresWithTheNetworkOff(@TempDir Path dir) throws Exception {
        String figures;
        try (SafetyActs acts = SafetyActs.open(REDIS.url(), "emq:figures:page:")) {
            figures = SafetyFigures.race(acts.race()) + SafetyFigures.crashGap(acts.crashGap());
            acts.deleteKeys();
        }
        Path page = dir.resolve("figures.html");
        Files.writeString(page, SafetyFigures.standalonePage("Why the lock is safe", "One run.", figures));
        browser.offline(true);
        try {
            browser.open(page.toUri().toString());
            List<WebElement> lanes = browser.findAll(By.cssSelector("#race .lane"));
            assertThat(lanes).hasSize(4);
            int oks = 0;
            for (WebElement lane : lanes) {
                browser.hover(lane);
                oks += readoutShown("race").contains(" → OK: ") ? 1 : 0;
                assertLitOnly(lanes, lane);
            }
            assertThat(oks).isEqualTo(1);
            assertThat(verdicts("race")).endsWith("Holders of the lock: 1. Double-acquired: no.");
            assertThat(verdicts("crash-gap")).endsWith("and the next SETNX got 0: a deadlock.");
        } finally {
            browser.offline(false);
        }
    }

    @Test
    void everyTextOfTheFiguresHasWcagAaContrastHoveredOrNot() {
        browser.open(acting.uri() + "safety");
        browser.click(By.xpath("//button[text()='Run the race']"));
        assertContrast("race");
        browser.click(By.xpath("//button[text()='Run the crash gap']"));
        assertContrast("crash-gap");
    }

    /** Checks every text of the figure's lanes, idle and hovered, and its readouts: 4.5:1 at least. */
    private static void assertContrast(String figure) {
        for (WebElement lane : browser.findAll(By.cssSelector("#" + figure + " .lane"))) {
            for (boolean hovered : new boolean[] {false, true}) {
                if (hovered) {
                    browser.hover(lane);
                } else {
                    browser.hoverNothing();
                }
                double[] bg = rgb(lane.getCssValue("background-color"), new double[] {255, 255, 255});
                for (WebElement text : lane.findElements(By.cssSelector("svg text"))) {
                    if (text.getAttribute("class").contains("who")) {
                        continue;   // white on the ink-coloured circle, checked below
                    }
                    assertThat(contrast(rgb(text.getCssValue("fill"), null), bg))
                            .as("%s '%s' (hovered: %s)", figure, text.getText(), hovered).isGreaterThanOrEqualTo(4.5);
                }
                for (WebElement who : lane.findElements(By.cssSelector("svg circle.who"))) {
                    assertThat(contrast(new double[] {255, 255, 255}, rgb(who.getCssValue("fill"), null)))
                            .isGreaterThanOrEqualTo(4.5);
                }
            }
            browser.hover(lane);
            WebElement ro = lane.findElement(By.cssSelector(".ro"));
            assertThat(contrast(rgb(ro.getCssValue("color"), null), rgb(ro.getCssValue("background-color"), null)))
                    .isGreaterThanOrEqualTo(4.5);
        }
        WebElement verdicts = browser.find(By.id(figure + "-verdicts"));
        assertThat(contrast(rgb(verdicts.getCssValue("color"), null), rgb(verdicts.getCssValue("background-color"),
                null))).isGreaterThanOrEqualTo(4.5);
    }

    /** @return the red, green and blue of a computed colour; {@code transparent} when it is fully transparent */
    private static double[] rgb(String css, double[] transparent) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rgba?\\(([0-9.]+), ([0-9.]+), ([0-9.]+)(?:, ([0-9.]+))?\\)")
                .matcher(css);
        assertThat(m.find()).as("a colour: %s", css).isTrue();
        if (m.group(4) != null && Double.parseDouble(m.group(4)) == 0) {
            assertThat(transparent).as("an opaque colour: %s", css).isNotNull();
            return transparent;
        }
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3))};
    }

    /** @return the WCAG 2 contrast ratio of two colours */
    private static double contrast(double[] a, double[] b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(double[] c) {
        double[] l = new double[3];
        for (int i = 0; i < 3; i++) {
            double v = c[i] / 255;
            l[i] = v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
    }

    /** @return the text of the figure's one readout on screen: the hovered or focused lane's, else the idle one */
    private static String readoutShown(String figure) {
        List<WebElement> shown = browser.findAll(By.cssSelector("#" + figure + " .readout, #" + figure + " .ro")).stream()
                .filter(WebElement::isDisplayed).toList();
        assertThat(shown).as("one readout on screen").hasSize(1);
        return shown.get(0).getText();
    }

    /** Checks that {@code lit}'s path, and only its, has the lit stroke (5px, where the others have 2px). */
    private static void assertLitOnly(List<WebElement> lanes, WebElement lit) {
        for (WebElement lane : lanes) {
            String width = lane.findElement(By.cssSelector("path.path")).getCssValue("stroke-width");
            assertThat(width).as("stroke-width of %s's path", lane.getAttribute("id"))
                    .isEqualTo(lane.equals(lit) ? "5px" : "2px");
        }
    }

    private static String verdicts(String id) {
        return browser.find(By.id(id + "-verdicts")).getText();
    }
}
