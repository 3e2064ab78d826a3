package dev.quiver.errors;

/**
 * A batch that does not fit the plan or is malformed: a column missing or of another type, a declared length that does not match, buffers too small for their rows, offsets that decrease or point past the data, dictionary indices out of range, invalid UTF-8. Raised before anything is computed on the batch; nothing is left allocated. The detail names the column and, where one row is at fault, the first bad row.
 */
public class InputException extends QuiverException {
    public InputException(String detail) {
        super(ErrorKind.INPUT, detail, null);
    }

    public InputException(String detail, Throwable cause) {
        super(ErrorKind.INPUT, detail, cause);
    }
}
