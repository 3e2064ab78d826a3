package dev.quiver.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code quiver} command line: {@code quiver bench}, {@code eval}, {@code explain}, {@code devices}. */
@Command(name = "quiver", mixinStandardHelpOptions = true, version = "quiver 0.1.0",
        description = "Scalar expressions over Apache Arrow on the CPU (Vector API) and OpenCL.",
        subcommands = {BenchCommand.class, EvalCommand.class, ExplainCommand.class, DevicesCommand.class, CommandLine.HelpCommand.class})
public final class QuiverCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new QuiverCli()).execute(args));
    }
}
