<?php
namespace Acme\Shop;

use Acme\Util\Strings;
use Acme\Util\Strings as S;

class Cart extends Base
{
    private Repo $repo;

    public function __construct()
    {
        $this->repo = new Repo();
    }

    public function add(string $item): void
    {
        $clean = Strings::trim($item);
        $this->repo->save($clean);
        $other = new Repo();
        $other->load(S::pad($clean));
        $this->validate();
        parent::close();
        helper($clean);
    }

    private function validate(): void {}
}

function helper(string $s): string
{
    return $s;
}
