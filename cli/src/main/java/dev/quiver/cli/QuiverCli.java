package dev.quiver.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code quiver} command line: {@code quiver bench}, {@code eval}, {@code explain}, {@code devices}. */
@Command(
        name = "quiver",
        mixinStandardHelpOptions = true,
        version = "quiver 0.1.0",
        description = "Scalar expressions over Apache Arrow on the CPU (Vector API) and OpenCL.",
        subcommands = {
            BenchCommand.class,
            EvalCommand.class,
            ExplainCommand.class,
            DevicesCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Exit status: 0 done, 1 a failure while running (an evaluation error, writing the output, memory, a leak), "
                    + "2 a wrong expression, schema, input or option. Errors are one line on stderr, 'error: <message>'.",
            "An expression that starts with '-' is taken as the expression, not an option (quiver eval \"-x + 1\" ...); "
                    + "'--' ends the options, for an expression that is also an option's name (quiver eval --input f -- -h)."
        })
public final class QuiverCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line as {@link #main} runs it (tests run the same one): an argument that looks
     * like an option but is none (an expression such as {@code -x + 1} or {@code -1}) is a positional
     * parameter; every failure of a command, exceptions and the JVM's {@code StackOverflowError} and
     * {@code OutOfMemoryError} alike, is one line on stderr and an exit status from {@link ExitStatus},
     * never a stack trace.
     */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new QuiverCli());
        cl.setUnmatchedOptionsArePositionalParams(true);
        cl.setExecutionExceptionHandler((e, command, parsed) -> ExitStatus.report(e, System.err));
        CommandLine.IExecutionStrategy run = new CommandLine.RunLast();
        cl.setExecutionStrategy(parsed -> {
            try {
                return run.execute(parsed);
            } catch (StackOverflowError | OutOfMemoryError e) {
                return ExitStatus.report(e, System.err);
            }
        });
        return cl;
    }
}
