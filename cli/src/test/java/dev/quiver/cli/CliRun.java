package dev.quiver.cli;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One in-process run of the command line, with its exit code, stdout and stderr. */
record CliRun(int exitCode, String out, String err, CommandLine commandLine) {

    static CliRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream oldOut = System.out, oldErr = System.err;
        CommandLine cl;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            cl = new CommandLine(new QuiverCli());
            code = cl.execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), cl);
    }

    /** The instance picocli ran for subcommand {@code name}. */
    <T> T subcommand(String name, Class<T> type) {
        return type.cast(commandLine.getSubcommands().get(name).getCommand());
    }
}
