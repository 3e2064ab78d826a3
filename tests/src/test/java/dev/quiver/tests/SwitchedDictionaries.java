package dev.quiver.tests;

import java.util.Set;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A dictionary provider that reads another one, which can be switched: an expression compiled
 * once over it evaluates a batch with the reader's dictionaries and then the batch's canonical
 * copy with the copy's, as Quiver consults the provider on every batch.
 */
final class SwitchedDictionaries implements DictionaryProvider {
    private DictionaryProvider target;

    SwitchedDictionaries(DictionaryProvider target) {
        this.target = target;
    }

    void switchTo(DictionaryProvider target) {
        this.target = target;
    }

    @Override
    public Dictionary lookup(long id) {
        return target.lookup(id);
    }

    @Override
    public Set<Long> getDictionaryIds() {
        return target.getDictionaryIds();
    }
}
