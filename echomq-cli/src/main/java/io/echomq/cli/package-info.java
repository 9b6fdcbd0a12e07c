/**
 * The {@code emq} command line, built with picocli: {@code emq lock acquire|release|renew|inspect},
 * {@code emq queue enqueue|stats|reap|remove|dead|inspect}, {@code emq worker}, {@code emq server}
 * and {@code emq demo}.
 *
 * <ul>
 *   <li>{@link io.echomq.cli.Emq} is the entry point and builds the command tree.</li>
 *   <li>{@code LockCommands} holds the four lock subcommands; {@code RedisOptions} is the shared
 *       {@code --redis} mixin (default {@code $EMQ_REDIS_URL}, else {@code redis://127.0.0.1:6379}).</li>
 *   <li>{@code QueueCommands} holds the queue subcommands; {@code WorkerCommand} runs a shell command
 *       per job under a {@link io.echomq.queue.Worker}.</li>
 *   <li>{@code ServerCommand} runs echomq-server's real {@code redis-server}; {@code DemoCommand}
 *       replays the classic locking failure scenarios ({@code DemoScenarios}) and prints them ({@code DemoConsole}).</li>
 *   <li>{@code Failures} maps errors to exit codes ({@code ExitCodes}): 2 for bad input, 3 for a
 *       Redis failure.</li>
 * </ul>
 */
package io.echomq.cli;
