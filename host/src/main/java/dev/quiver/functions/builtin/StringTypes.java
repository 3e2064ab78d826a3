package dev.quiver.functions.builtin;

import dev.quiver.types.DataType;
import java.util.List;

/** The string type several string arguments share: LargeUtf8 when any is LargeUtf8, else Utf8. */
final class StringTypes {
    private StringTypes() {}

    /** LargeUtf8 when any of {@code types} is LargeUtf8, else Utf8. */
    static DataType common(List<DataType> types) {
        return types.stream().anyMatch(t -> t.valueType() instanceof DataType.Utf8 u && u.large())
                ? DataType.LARGE_UTF8
                : DataType.UTF8;
    }

    /** Whether {@code t} (a dictionary counts as its value type) is LargeUtf8. */
    static boolean isLarge(DataType t) {
        return t.valueType() instanceof DataType.Utf8 u && u.large();
    }
}
