package dev.quiver.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** One in-process run of the command line as {@code QuiverCli.main} runs it, with its exit code, stdout and stderr. */
record CliRun(int exitCode, byte[] outBytes, String out, String err, CommandLine commandLine) {

    static CliRun of(String... args) {
        return withInput(new byte[0], args);
    }

    /** A run with {@code stdin} as its standard input (a stream that cannot seek, as a pipe). */
    static CliRun withInput(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream oldOut = System.out, oldErr = System.err;
        InputStream oldIn = System.in;
        CommandLine cl;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            System.setIn(new ByteArrayInputStream(stdin));
            cl = QuiverCli.commandLine();
            code = cl.execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
        }
        return new CliRun(
                code,
                out.toByteArray(),
                out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8),
                cl);
    }

    /** The instance picocli ran for subcommand {@code name}. */
    <T> T subcommand(String name, Class<T> type) {
        return type.cast(commandLine.getSubcommands().get(name).getCommand());
    }
}
