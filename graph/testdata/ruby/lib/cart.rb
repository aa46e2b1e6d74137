require_relative "repo"

class Cart < Base
  def initialize
    @repo = Repo.new
  end

  def add(item)
    @repo.save(item)
    other = Repo.new
    other.load(item)
    validate(item)
  end

  def validate(item)
    item
  end
end
