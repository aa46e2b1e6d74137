from .app import App

current_app: App = App()
