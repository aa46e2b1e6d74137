class Repo
  def save(key); end

  def load(key)
    key
  end
end
