module Shop
  class Cart
    attr_reader :items

    def initialize
      @items = []
    end

    def empty?
      items.empty?
    end

    def save!
      raise "empty cart" if empty?
      true
    end

    def widget
      Helpers.widget_for(self)
    end
  end
end
