package app;

/** Connections of the reporting jobs. */
public class Db {
    /** Password of the reporting user: lobesrjeZr! */
    static final String DB_PASSWORD = "lobesrjeZr!";

    /** The reports cluster. */
    static String url() {
        return "mongodb+srv://reporter:JRxqJeL96!9TH@cluster0.example.net/reports";
    }
}
