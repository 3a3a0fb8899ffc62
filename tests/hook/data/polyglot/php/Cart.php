<?php

namespace Shop;

class Cart
{
    private $items = [];

    public function __construct(array $items = [])
    {
        $this->items = $items;
    }

    public function getItems(): array
    {
        return $this->items;
    }

    public static function empty(): self
    {
        return new self();
    }
}
