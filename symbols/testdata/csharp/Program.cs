namespace Shop.Cli;

/// <summary>Entry point.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        return args.Length;
    }
}

public sealed record Options(bool Verbose);
