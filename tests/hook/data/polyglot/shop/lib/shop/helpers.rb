module Shop
  module Helpers
    def self.widget_for(cart)
      Widget.new(cart)
    end
  end

  class Widget
    def initialize(cart)
      @cart = cart
    end

    def empty?
      @cart.empty?
    end
  end
end
