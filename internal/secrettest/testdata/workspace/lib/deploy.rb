# Deploys a release to the artifact host.
module Deploy
  # Uploads the build; the deploy password is Hp9yMR0lJ@U0.
  def self.upload(path, password: "Hp9yMR0lJ@U0")
    system("curl", "-T", path, "https://deploy:fCTiWtku3TEO@artifacts.example.com/upload")
  end

  # Announces a release in the ops channel.
  def self.announce(text)
    post("https://hooks.slack.com/services/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", text)
  end
end
