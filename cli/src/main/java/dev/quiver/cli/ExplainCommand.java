package dev.quiver.cli;

import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.opencl.TransferMode;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver explain "<expr>" --schema x:float64,name:utf8}: plans the expression against
 * the schema and prints the logical plan as written, the physical plan as it will run, which
 * devices can run its kernels, and per kernel segment each device's estimated time at
 * {@code --batch-rows} rows with the crossover batch size. No data is read.
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = {
            "Plan an expression against a schema and print both plans (logical as written, physical as it "
                    + "will run), the devices that can run its kernels, and per kernel segment each device's estimated time "
                    + "for a batch of --batch-rows rows and the batch size from which an OpenCL device is estimated faster "
                    + "(devices are calibrated on first use, about a second each, then cached). No data is needed.",
            "Exit status: 0 planned, 2 the expression or schema is wrong (the reason goes to stderr)."
        })
final class ExplainCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "EXPR", description = "SQL scalar expression, e.g. \"sqrt(x*x + y*y)\".")
    String expression;

    @Option(
            names = "--arithmetic",
            converter = ArithmeticOption.class,
            paramLabel = "checked|wrapping",
            description = ArithmeticOption.DESCRIPTION)
    ArithmeticMode arithmetic = ArithmeticMode.CHECKED;

    @Option(
            names = "--transfer",
            converter = TransferOption.class,
            paramLabel = TransferOption.LABEL,
            description = TransferOption.DESCRIPTION)
    TransferMode transfer;

    @Option(
            names = "--schema",
            converter = SchemaSpec.class,
            paramLabel = "NAME:TYPE,...",
            description = "Columns the expression may read, e.g. x:float64,y:int32,price:decimal(10,2),"
                    + "at:timestamp[ms, UTC],name:utf8. Default: no columns.")
    Schema schema = new Schema(List.of());

    @Option(
            names = "--batch-rows",
            converter = BenchCommand.RowCount.class,
            paramLabel = "N",
            description = "The batch size placement estimates are shown for (e.g. 1K, 64K, 4M). Default: 64K.")
    int batchRows = CompiledExpression.DEFAULT_EXPLAIN_ROWS;

    @Override
    public Integer call() {
        try (RootAllocator allocator = new RootAllocator();
                Quiver quiver = TransferOption.apply(
                                Quiver.builder()
                                        .allocator(allocator)
                                        .functions(CliFunctions.registry())
                                        .arithmetic(arithmetic),
                                transfer)
                        .build()) {
            CompiledExpression compiled;
            try {
                compiled = quiver.compile(schema, expression);
            } catch (PlanningException | IllegalArgumentException e) {
                return ExitStatus.report(
                        new CliError(ExitStatus.Kind.EXPRESSION, String.valueOf(e.getMessage()), e), System.err);
            }
            System.out.print(compiled.explain(false, batchRows));
            System.out.flush();
            return 0;
        }
    }
}
