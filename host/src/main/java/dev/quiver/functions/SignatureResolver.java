package dev.quiver.functions;

import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.IntervalUnit;

/**
 * Decides which types the arguments of a function call are cast to, from the function's
 * {@link TypeSignature}: DataFusion's {@code fields_with_udf}, in three steps.
 * <ol>
 *   <li>Expand the signature into candidate argument-type lists. The legacy shapes list what
 *       they name ({@link TypeSignature.Exact} one list, {@link TypeSignature.Uniform} and
 *       {@link TypeSignature.Variadic} one list per type); the others compute their single
 *       target from the arguments ({@link TypeSignature.Numeric}: their common numeric type,
 *       a Null taking the others' type and all-Null giving Int64; {@link TypeSignature.StringArgs}:
 *       their common string type, all-Null giving Utf8; {@link TypeSignature.Comparable}: their
 *       common {@link TypeCoercion#comparisonType}; {@link TypeSignature.Coercible}: per argument,
 *       kept when in the desired class, else the coercion's default cast type when in an allowed
 *       source class; {@link TypeSignature.Any} and {@link TypeSignature.VariadicAny}: as given;
 *       {@link TypeSignature.Nullary}: none). {@link TypeSignature.OneOf} collects the
 *       candidates of its alternatives in order; {@link TypeSignature.UserDefined} asks
 *       {@link ScalarFunction#coerceTypes}.</li>
 *   <li>If the arguments already have the types of some candidate (a dictionary counts as
 *       its value type), nothing is cast, whichever alternative that candidate came from.</li>
 *   <li>Otherwise the first candidate the arguments can reach wins: order is semantics. A
 *       listed candidate (Exact, Uniform, Variadic) is reachable when every argument
 *       {@link TypeCoercion#canCoerce can be coerced} to its type; a computed one (all the
 *       other shapes) already is, and its casts are inserted as they are (DataFusion's
 *       "well supported" signatures).</li>
 * </ol>
 * A Null-typed argument coerces to whatever a candidate asks for. For a {@code Coercible}
 * argument whose desired class is a whole family, a Null becomes the family's usual type
 * (Integer: Int64, Float and Numeric: Float64, Decimal: Decimal128(18, 3), String: Utf8,
 * Boolean, Binary, Date: Date32, Timestamp: Timestamp(us), Interval: MONTH_DAY_NANO, Any: kept).
 *
 * <p>Example: for {@code hypot} with signature {@code Numeric(2)},
 * {@code resolve(hypot, [Int32, Float64])} is {@code [Float64, Float64]}, and
 * {@code resolve(hypot, [Utf8, Int32])} throws
 * {@code no signature of hypot accepts (Utf8, Int32); signatures: hypot(Numeric, Numeric)}.
 */
public final class SignatureResolver {
    private SignatureResolver() {}

    /**
     * The types each argument must be cast to: {@code argTypes.get(i)} itself at each position
     * that needs no cast (so a dictionary-encoded argument whose value type is wanted stays a
     * dictionary), else the target type. For a {@link TypeSignature.UserDefined} signature,
     * what {@link ScalarFunction#coerceTypes} returns.
     *
     * @throws PlanningException when no signature accepts the arguments, naming the function,
     *                           the argument types and the signatures; when the number of
     *                           arguments is wrong, saying how many the function takes
     */
    public static List<DataType> resolve(ScalarFunction fn, List<DataType> argTypes) {
        Objects.requireNonNull(fn, "fn is null");
        List<DataType> args = List.copyOf(Objects.requireNonNull(argTypes, "argTypes is null"));
        TypeSignature signature = fn.signature().typeSignature();
        if (signature instanceof TypeSignature.UserDefined) {
            List<DataType> coerced = fn.coerceTypes(args);
            if (coerced == null || coerced.size() != args.size()) {
                throw new PlanningException("coerceTypes of " + fn.name() + " returned " + coerced + " for "
                        + args.size() + " arguments " + formatArgs(args));
            }
            return List.copyOf(coerced);
        }
        if (!acceptsArity(signature, args.size())) {
            int n = args.size();
            throw new PlanningException(fn.name() + " takes " + arityText(signature) + ", got " + n + ": " + fn.name()
                    + formatArgs(args) + "; signatures: " + signaturesText(fn.name(), signature));
        }
        List<Candidate> candidates = new ArrayList<>();
        collectCandidates(fn, signature, args, candidates);
        for (Candidate candidate : candidates) {
            if (matchesExactly(args, candidate.types())) {
                return args;
            }
        }
        for (Candidate candidate : candidates) {
            // a target computed from the arguments is a direct cast; a listed one must be reachable
            if (candidate.computed() || canCoerceAll(args, candidate.types())) {
                List<DataType> out = new ArrayList<>(args.size());
                for (int i = 0; i < args.size(); i++) {
                    DataType target = candidate.types().get(i);
                    out.add(args.get(i).valueType().equals(target) ? args.get(i) : target);
                }
                return Collections.unmodifiableList(out);
            }
        }
        throw new PlanningException("no signature of " + fn.name() + " accepts " + formatArgs(args) + "; signatures: "
                + signaturesText(fn.name(), signature));
    }

    /**
     * The human-readable forms of {@code signature} for a function called {@code name}, one
     * per accepted shape: {@code sqrt(Float64)}, {@code concat(Utf8, ...)}, {@code f(Any, Any)},
     * {@code coalesce(Any, ...)}, {@code hypot(Numeric, Numeric)}, {@code now()}; a
     * {@link TypeSignature.OneOf} gives the forms of its alternatives in order, a
     * {@link TypeSignature.Uniform} or {@link TypeSignature.Variadic} one form per type.
     */
    public static List<String> describe(String name, TypeSignature signature) {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(signature, "signature is null");
        List<String> forms = new ArrayList<>();
        describeInto(name, signature, forms);
        return List.copyOf(forms);
    }

    private static void describeInto(String name, TypeSignature signature, List<String> forms) {
        switch (signature) {
            case TypeSignature.Exact e ->
                forms.add(call(name, e.types().stream().map(Object::toString).toList()));
            case TypeSignature.Uniform u -> {
                for (DataType t : u.types()) {
                    forms.add(call(name, Collections.nCopies(u.count(), t.toString())));
                }
            }
            case TypeSignature.Variadic v -> {
                for (DataType t : v.types()) {
                    forms.add(call(name, List.of(t.toString(), "...")));
                }
            }
            case TypeSignature.VariadicAny _ -> forms.add(call(name, List.of("Any", "...")));
            case TypeSignature.Any a -> forms.add(call(name, Collections.nCopies(a.count(), "Any")));
            case TypeSignature.OneOf o -> {
                for (TypeSignature alternative : o.alternatives()) {
                    describeInto(name, alternative, forms);
                }
            }
            case TypeSignature.Numeric n -> forms.add(call(name, Collections.nCopies(n.count(), "Numeric")));
            case TypeSignature.StringArgs s -> forms.add(call(name, Collections.nCopies(s.count(), "String")));
            case TypeSignature.Comparable c -> forms.add(call(name, Collections.nCopies(c.count(), "Comparable")));
            case TypeSignature.Coercible c ->
                forms.add(
                        call(name, c.coercions().stream().map(Object::toString).toList()));
            case TypeSignature.UserDefined _ -> forms.add(call(name, List.of("user-defined")));
            case TypeSignature.Nullary _ -> forms.add(call(name, List.of()));
        }
    }

    private static String call(String name, List<String> args) {
        return name + "(" + String.join(", ", args) + ")";
    }

    private static String signaturesText(String name, TypeSignature signature) {
        return String.join(", ", describe(name, signature));
    }

    private static String formatArgs(List<DataType> args) {
        return args.stream().map(Object::toString).collect(Collectors.joining(", ", "(", ")"));
    }

    // ------------------------------------------------------------------ arity

    private static boolean acceptsArity(TypeSignature signature, int n) {
        return switch (signature) {
            case TypeSignature.Exact e -> e.types().size() == n;
            case TypeSignature.Uniform u -> u.count() == n;
            case TypeSignature.Variadic _ -> n >= 1;
            case TypeSignature.VariadicAny _ -> n >= 1;
            case TypeSignature.Any a -> a.count() == n;
            case TypeSignature.OneOf o -> o.alternatives().stream().anyMatch(alt -> acceptsArity(alt, n));
            case TypeSignature.Numeric num -> num.count() == n;
            case TypeSignature.StringArgs s -> s.count() == n;
            case TypeSignature.Comparable c -> c.count() == n;
            case TypeSignature.Coercible c -> c.coercions().size() == n;
            case TypeSignature.UserDefined _ -> true;
            case TypeSignature.Nullary _ -> n == 0;
        };
    }

    /** "2 arguments", "1 or 2 arguments", "at least 1 argument", "no arguments". */
    private static String arityText(TypeSignature signature) {
        TreeSet<Integer> fixed = new TreeSet<>();
        boolean variadic = collectArities(signature, fixed);
        if (variadic) {
            // variadic shapes take one or more, so only a fixed 0 adds anything
            return fixed.contains(0) ? "any number of arguments" : "at least 1 argument";
        }
        if (fixed.equals(Set.of(0))) {
            return "no arguments";
        }
        List<String> counts = fixed.stream().map(String::valueOf).toList();
        String list = counts.size() == 1
                ? counts.getFirst()
                : String.join(", ", counts.subList(0, counts.size() - 1)) + " or " + counts.getLast();
        return list + (fixed.size() == 1 && fixed.first() == 1 ? " argument" : " arguments");
    }

    /** Adds the fixed arities of {@code signature} to {@code fixed}; true when it also takes one or more. */
    private static boolean collectArities(TypeSignature signature, TreeSet<Integer> fixed) {
        return switch (signature) {
            case TypeSignature.Exact e -> {
                fixed.add(e.types().size());
                yield false;
            }
            case TypeSignature.Uniform u -> {
                fixed.add(u.count());
                yield false;
            }
            case TypeSignature.Variadic _ -> true;
            case TypeSignature.VariadicAny _ -> true;
            case TypeSignature.Any a -> {
                fixed.add(a.count());
                yield false;
            }
            case TypeSignature.OneOf o -> {
                boolean any = false;
                for (TypeSignature alternative : o.alternatives()) {
                    any |= collectArities(alternative, fixed);
                }
                yield any;
            }
            case TypeSignature.Numeric num -> {
                fixed.add(num.count());
                yield false;
            }
            case TypeSignature.StringArgs s -> {
                fixed.add(s.count());
                yield false;
            }
            case TypeSignature.Comparable c -> {
                fixed.add(c.count());
                yield false;
            }
            case TypeSignature.Coercible c -> {
                fixed.add(c.coercions().size());
                yield false;
            }
            case TypeSignature.UserDefined _ -> true;
            case TypeSignature.Nullary _ -> {
                fixed.add(0);
                yield false;
            }
        };
    }

    // ------------------------------------------------------------------ candidates

    /**
     * One list of argument types a signature accepts. {@code computed}: derived from the
     * arguments themselves (Numeric, StringArgs, Comparable, Coercible, Any, user-defined), so
     * reaching it is a direct cast; otherwise listed by the signature (Exact, Uniform,
     * Variadic), and every argument must {@link TypeCoercion#canCoerce} to it.
     */
    private record Candidate(List<DataType> types, boolean computed) {
        static Candidate listed(List<DataType> types) {
            return new Candidate(types, false);
        }

        static Candidate computed(List<DataType> types) {
            return new Candidate(types, true);
        }
    }

    private static void collectCandidates(
            ScalarFunction fn, TypeSignature signature, List<DataType> args, List<Candidate> out) {
        if (!acceptsArity(signature, args.size())) {
            return;
        }
        int n = args.size();
        switch (signature) {
            case TypeSignature.Exact e -> out.add(Candidate.listed(valueTypes(e.types())));
            case TypeSignature.Uniform u ->
                u.types().forEach(t -> out.add(Candidate.listed(Collections.nCopies(n, t.valueType()))));
            case TypeSignature.Variadic v ->
                v.types().forEach(t -> out.add(Candidate.listed(Collections.nCopies(n, t.valueType()))));
            case TypeSignature.VariadicAny _ -> out.add(Candidate.computed(valueTypes(args)));
            case TypeSignature.Any _ -> out.add(Candidate.computed(valueTypes(args)));
            case TypeSignature.OneOf o -> {
                for (TypeSignature alternative : o.alternatives()) {
                    collectCandidates(fn, alternative, args, out);
                }
            }
            case TypeSignature.Numeric _ ->
                numericTarget(args).ifPresent(t -> out.add(Candidate.computed(Collections.nCopies(n, t))));
            case TypeSignature.StringArgs _ ->
                stringTarget(args).ifPresent(t -> out.add(Candidate.computed(Collections.nCopies(n, t))));
            case TypeSignature.Comparable _ ->
                comparableTarget(args).ifPresent(t -> out.add(Candidate.computed(Collections.nCopies(n, t))));
            case TypeSignature.Coercible c ->
                coercibleTargets(c.coercions(), args).ifPresent(t -> out.add(Candidate.computed(t)));
            case TypeSignature.UserDefined _ -> {
                // only reachable inside OneOf: a user-defined alternative rejects by throwing
                try {
                    List<DataType> coerced = fn.coerceTypes(args);
                    if (coerced != null && coerced.size() == n) {
                        out.add(Candidate.computed(valueTypes(coerced)));
                    }
                } catch (PlanningException rejected) {
                    // this alternative does not accept the arguments; the next one may
                }
            }
            case TypeSignature.Nullary _ -> out.add(Candidate.computed(List.of()));
        }
    }

    private static List<DataType> valueTypes(List<DataType> types) {
        return types.stream().map(DataType::valueType).toList();
    }

    private static Optional<DataType> numericTarget(List<DataType> args) {
        for (DataType a : args) {
            DataType t = a.valueType();
            if (!t.isNumeric() && !(t instanceof DataType.Null)) {
                return Optional.empty();
            }
        }
        return TypeCoercion.commonType(args).map(t -> t instanceof DataType.Null ? DataType.INT64 : t);
    }

    private static Optional<DataType> stringTarget(List<DataType> args) {
        for (DataType a : args) {
            DataType t = a.valueType();
            if (!(t instanceof DataType.Utf8) && !(t instanceof DataType.Null)) {
                return Optional.empty();
            }
        }
        return TypeCoercion.commonType(args).map(t -> t instanceof DataType.Null ? DataType.UTF8 : t);
    }

    private static Optional<DataType> comparableTarget(List<DataType> args) {
        DataType acc = DataType.NULL;
        for (DataType a : args) {
            Optional<DataType> next = TypeCoercion.comparisonType(acc, a);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            acc = next.get();
        }
        return Optional.of(acc);
    }

    private static Optional<List<DataType>> coercibleTargets(List<Coercion> coercions, List<DataType> args) {
        List<DataType> targets = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            Coercion c = coercions.get(i);
            DataType t = args.get(i).valueType();
            if (c.desired().matches(t)) {
                targets.add(t);
            } else if (t instanceof DataType.Null) {
                targets.add(c instanceof Coercion.Implicit imp ? imp.defaultCastType() : usualType(c.desired()));
            } else if (c instanceof Coercion.Implicit imp
                    && imp.allowedSources().stream().anyMatch(s -> s.matches(t))) {
                targets.add(imp.defaultCastType());
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(targets);
    }

    /** The type a Null argument takes for a class: the class's most usual member. */
    private static DataType usualType(TypeSignatureClass cls) {
        return switch (cls) {
            case TypeSignatureClass.Native n -> n.type();
            case TypeSignatureClass.Family f ->
                switch (f) {
                    case ANY -> DataType.NULL;
                    case BOOLEAN -> DataType.BOOLEAN;
                    case INTEGER -> DataType.INT64;
                    case FLOAT, NUMERIC -> DataType.FLOAT64;
                    case DECIMAL -> new DataType.Decimal(18, 3);
                    case STRING -> DataType.UTF8;
                    case BINARY -> DataType.BINARY;
                    case DATE -> DataType.DATE32;
                    case TIMESTAMP -> new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
                    case INTERVAL -> new DataType.Interval(IntervalUnit.MONTH_DAY_NANO);
                };
        };
    }

    private static boolean matchesExactly(List<DataType> args, List<DataType> candidate) {
        for (int i = 0; i < args.size(); i++) {
            if (!args.get(i).valueType().equals(candidate.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean canCoerceAll(List<DataType> args, List<DataType> candidate) {
        for (int i = 0; i < args.size(); i++) {
            if (!TypeCoercion.canCoerce(args.get(i), candidate.get(i))) {
                return false;
            }
        }
        return true;
    }
}
