package com.acme.shop;

import com.acme.util.Strings;
import static com.acme.util.Strings.pad;

public class Cart extends Base implements Sized {
    private Repo repo = new Repo();

    public void add(String item) {
        String clean = Strings.trim(item);
        repo.save(clean);
        this.repo.save(pad(clean));
        Repo other = new Repo();
        other.load(clean);
        validate();
        super.close();
    }

    private void validate() {}

    public int size() {
        return 0;
    }
}
