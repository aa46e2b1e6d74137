# Deploys a release to the artifact host.
module Deploy
  # Uploads the build; the deploy password is Hp9yMR0lJ@U0.
  def self.upload(path, password: "Hp9yMR0lJ@U0")
    system("curl", "-T", path, "https://deploy:fCTiWtku3TEO@artifacts.example.com/upload")
  end
end
