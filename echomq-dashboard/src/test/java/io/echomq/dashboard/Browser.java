package io.echomq.dashboard;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chromium.ChromiumNetworkConditions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium, driven by Selenium, for the browser tests.
 *
 * <ol>
 *   <li>Starts {@code /usr/bin/chromium} through {@code /usr/bin/chromedriver}, both named
 *       explicitly, so that Selenium Manager is never asked to find (and so never downloads) a
 *       browser or a driver; {@link #seleniumManagerSkipped()} reads Selenium's own log to prove it.</li>
 *   <li>Keeps a fixed window (1200 x 900, scale 1), so that screenshots do not depend on the
 *       machine, and turns off Chromium's background traffic (updates, sync, first-run pages).</li>
 *   <li>Writes screenshots to {@code target/screenshots}, or to the directory named by the system
 *       property {@code emq.screenshots.dir} (how {@code docs/images} is refreshed).</li>
 * </ol>
 */
final class Browser implements AutoCloseable {
    static final String CHROMIUM = System.getProperty("emq.chromium", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getProperty("emq.chromedriver", "/usr/bin/chromedriver");
    static final int WIDTH = 1200;
    static final int HEIGHT = 900;
    /** The window's height while one element is shot. */
    static final int TALL = 1400;

    private static final Logger FINDER_LOG = Logger.getLogger("org.openqa.selenium.remote.service.DriverFinder");
    private static final List<String> FINDER_MESSAGES = new CopyOnWriteArrayList<>();
    /** Warns that no DevTools binding matches Debian's Chromium; the tests use WebDriver only, not DevTools. */
    private static final Logger CDP_LOG = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

    static {
        CDP_LOG.setLevel(Level.SEVERE);
        // Kept in a static field: java.util.logging holds loggers weakly, and a collected logger loses its level.
        FINDER_LOG.setLevel(Level.FINE);
        FINDER_LOG.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                FINDER_MESSAGES.add(String.valueOf(r.getMessage()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
    }

    private final ChromeDriver driver;
    private final Path shots;

    Browser() {
        if (!new File(CHROMIUM).canExecute() || !new File(CHROMEDRIVER).canExecute()) {
            throw new IllegalStateException("the browser tests need Debian's Chromium: apt-get install -y chromium "
                    + "chromium-driver (looked for " + CHROMIUM + " and " + CHROMEDRIVER + ")");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=" + WIDTH + "," + HEIGHT, "--force-device-scale-factor=1", "--hide-scrollbars",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        this.driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
        this.shots = Path.of(System.getProperty("emq.screenshots.dir", "target/screenshots"));
    }

    /** @return whether Selenium's driver finder logged that it used the given driver and skipped Selenium Manager */
    static boolean seleniumManagerSkipped() {
        return FINDER_MESSAGES.stream().anyMatch(m -> m.startsWith("Skipping Selenium Manager"));
    }

    /** Opens {@code uri} and waits for the page to load. */
    void open(String uri) {
        driver.get(uri);
    }

    /**
     * Clicks the first element {@code by} finds, a link or a form's button, and waits until the
     * page it leads to has replaced this one (a click may return before the next page is there).
     */
    void click(By by) {
        WebElement page = driver.findElement(By.tagName("html"));
        driver.findElement(by).click();
        new WebDriverWait(driver, Duration.ofSeconds(15)).pollingEvery(Duration.ofMillis(50)).until(d -> gone(page));
    }

    /** Moves the mouse onto {@code e}, as a person's pointer would (its {@code :hover} styles apply). */
    void hover(WebElement e) {
        new Actions(driver).moveToElement(e).perform();
    }

    /** Moves the mouse to the page's top left corner, away from any figure. */
    void hoverNothing() {
        new Actions(driver).moveToElement(driver.findElement(By.tagName("h1"))).perform();
    }

    /** Presses Tab once: keyboard focus moves to the next focusable element. */
    void tab() {
        new Actions(driver).sendKeys(Keys.TAB).perform();
    }

    /** @return the element that has keyboard focus */
    WebElement focused() {
        return driver.switchTo().activeElement();
    }

    /** Cuts the browser off the network (no request leaves it) or puts it back. */
    void offline(boolean offline) {
        if (offline) {
            ChromiumNetworkConditions c = new ChromiumNetworkConditions();
            c.setOffline(true);
            driver.setNetworkConditions(c);
        } else {
            driver.deleteNetworkConditions();
        }
    }

    /**
     * @return whether {@code element} has left the document. Chromium answers a question about an
     *     element of a replaced page either as stale or, while the new page is being built, with an
     *     inspector error that its node "does not belong to the document": both mean gone
     */
    private static boolean gone(WebElement element) {
        try {
            element.isEnabled();
            return false;
        } catch (StaleElementReferenceException e) {
            return true;
        } catch (WebDriverException e) {
            if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
                return true;
            }
            throw e;
        }
    }

    WebElement find(By by) {
        return driver.findElement(by);
    }

    List<WebElement> findAll(By by) {
        return driver.findElements(by);
    }

    String title() {
        return driver.getTitle();
    }

    String url() {
        return driver.getCurrentUrl();
    }

    /** @return the visible text of the page's main part */
    String mainText() {
        return driver.findElement(By.tagName("main")).getText();
    }

    /** Writes a PNG of the window to {@code <dir>/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(shots);
            Path to = shots.resolve(name + ".png");
            Files.write(to, driver.getScreenshotAs(OutputType.BYTES));
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes a PNG of one element to {@code <dir>/<name>.png}, with the pointer on {@code hovered}:
     * for the shot only, the window grows to {@value #TALL} pixels high and the element is
     * scrolled to its top, so that a figure with its verdicts fits whole; then the window is put
     * back to its fixed size.
     */
    Path screenshot(String name, WebElement element, WebElement hovered) {
        driver.manage().window().setSize(new Dimension(WIDTH, TALL));
        try {
            driver.executeScript("arguments[0].scrollIntoView(true)", element);
            new Actions(driver).moveToElement(hovered).perform();
            Files.createDirectories(shots);
            Path to = shots.resolve(name + ".png");
            Files.write(to, element.getScreenshotAs(OutputType.BYTES));
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            driver.manage().window().setSize(new Dimension(WIDTH, HEIGHT));
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
